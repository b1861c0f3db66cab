//! Runs one training: checks the configuration and its memory estimate before anything
//! is allocated, then the algorithm's trainer (SP, PBT, FCP and MEP in [`super::train`],
//! COLE in [`super::cole`]). Kept apart from the trainers so their shared machinery does
//! not depend on any one algorithm.

use super::cole::train_cole;
use super::game::RlGame;
use super::train::{
    Algo, IterRecord, PoolEntry, TrainConfig, TrainError, TrainOutcome, context, finish, train_fcp, train_mep,
    train_pbt, train_sp,
};

/// Runs the configured algorithm on `game`. `pool` (FCP only) replaces the internal SP
/// runs; `on_iter` sees every iteration as it finishes. Same configuration, same weights.
pub fn train<G: RlGame>(
    game: &G,
    cfg: &TrainConfig,
    pool: Option<Vec<PoolEntry>>,
    on_iter: &mut dyn FnMut(&IterRecord),
) -> Result<TrainOutcome, TrainError> {
    train_from(game, cfg, pool, None, on_iter)
}

/// As [`train`], with the final policy's learner (FCP's, MEP's or COLE's) starting from
/// `init`'s weights instead of random ones; refused for SP and PBT, and for weights whose
/// layer sizes are not this run's.
pub fn train_from<G: RlGame>(
    game: &G,
    cfg: &TrainConfig,
    pool: Option<Vec<PoolEntry>>,
    init: Option<PoolEntry>,
    on_iter: &mut dyn FnMut(&IterRecord),
) -> Result<TrainOutcome, TrainError> {
    let mut ctx = context(game, cfg, pool.as_deref(), init, on_iter)?;
    let trained = match cfg.algo {
        Algo::Sp => train_sp(&mut ctx),
        Algo::Pbt => train_pbt(&mut ctx),
        Algo::Fcp => train_fcp(&mut ctx, pool),
        Algo::Mep => train_mep(&mut ctx),
        Algo::Cole => train_cole(&mut ctx),
    };
    Ok(finish(ctx, trained))
}

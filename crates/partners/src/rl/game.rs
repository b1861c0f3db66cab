//! What the trainer and the RL seats need of a game beyond its rules ([`RlGame`]): its
//! observation encodings, each player's shaped reward, and what a model file records of
//! the game it was trained on (and how that is checked against the game it plays).
//!
//! Classic Overcooked and OvercookedV2 implement it. A game whose players choose among
//! the six Overcooked actions (N, S, E, W, stay, interact: the network's six logits) and
//! that two players play can be trained on by implementing it.
//!
//! Guarantees: [`RlGame::check_model`] refuses a model recorded for another game, another
//! layout (compared by terrain for built-in layouts, by name for layout files) or, for
//! OvercookedV2, other environment switches; the message says what differs.

use super::obs::{Encode, FEATURES62, Features62};
use super::obs_v2::{V2_VIEW, V2View};
use proagent_core::Game;
use proagent_overcooked::env::{Action, layout};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::env::{Layout as V2Layout, Settings};
use proagent_overcooked_v2::game::OvercookedV2;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// An encoding a game cannot give.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncoderError {
    /// Not an encoding of this game.
    #[error("observation encoder {name:?} is not one of {game}'s (it has: {known})")]
    Unknown {
        /// The encoding asked for.
        name: String,
        /// The game's kind.
        game: &'static str,
        /// The game's encodings.
        known: String,
    },
    /// The layout is too large for the encoding's precomputed tables.
    #[error("{0}")]
    TooLarge(String),
}

/// A game the PPO trainer and the RL seats can play: two players, six actions.
pub trait RlGame: Game<Action = Action> + Clone {
    /// An encoding bound to one game value.
    type Encoder: Encode<Self> + Clone + 'static;
    /// The encodings of this game, by model-file name (the first is the default).
    const ENCODERS: &'static [&'static str];
    /// The encoding `name` for this game.
    fn encoder(&self, name: &str) -> Result<Self::Encoder, EncoderError>;
    /// Each player's shaped reward in a step (the first two players').
    fn shaped(&self, outcome: &Self::Outcome) -> [i32; 2];
    /// The layout's name as model files record it (a built-in's canonical name).
    fn layout_name(&self) -> String;
    /// What a model file records of the game besides its layout (nothing for classic
    /// Overcooked, whose files predate this field; `game` and `settings` for V2).
    fn model_fields(&self) -> Map<String, Value>;
    /// Whether a model whose metadata is `info` was trained on this game: `Err` says what
    /// differs.
    fn check_model(&self, info: &Value) -> Result<(), ModelMismatch>;
    /// The built-in layout with this game's terrain, under which shipped models are filed.
    fn shipped_layout(&self) -> Option<String>;
}

/// What differs between the game a model was trained on and the one it is asked to play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelMismatch(pub String);

fn recorded_game(info: &Value) -> &str {
    info.get("game").and_then(Value::as_str).unwrap_or("overcooked")
}

impl RlGame for Overcooked {
    type Encoder = Features62;
    const ENCODERS: &'static [&'static str] = &[FEATURES62];

    fn encoder(&self, name: &str) -> Result<Features62, EncoderError> {
        if name != FEATURES62 {
            return Err(EncoderError::Unknown {
                name: name.to_string(),
                game: "overcooked",
                known: Self::ENCODERS.join(", "),
            });
        }
        Ok(Features62::new(Arc::clone(&self.layout)))
    }

    fn shaped(&self, outcome: &Self::Outcome) -> [i32; 2] {
        outcome.shaped_by_player.map(|s| i32::try_from(s).unwrap_or(i32::MAX))
    }

    fn layout_name(&self) -> String {
        layout::canonical_name(&self.layout.name).map_or_else(|| self.layout.name.clone(), str::to_string)
    }

    fn model_fields(&self) -> Map<String, Value> {
        Map::new()
    }

    fn check_model(&self, info: &Value) -> Result<(), ModelMismatch> {
        let game = recorded_game(info);
        if game != "overcooked" {
            return Err(ModelMismatch(format!("trained on game {game:?}, this is classic Overcooked")));
        }
        let recorded = info.get("layout").and_then(Value::as_str).unwrap_or("");
        let same = match proagent_overcooked::env::Layout::builtin(recorded) {
            Some(b) => b.width == self.layout.width && b.height == self.layout.height && b.tiles == self.layout.tiles,
            None => recorded == self.layout.name,
        };
        if same {
            Ok(())
        } else {
            Err(ModelMismatch(format!("trained on layout {recorded:?}, this is {:?}", self.layout.name)))
        }
    }

    fn shipped_layout(&self) -> Option<String> {
        crate::bc::matching_builtin(&self.layout).map(str::to_string)
    }
}

/// The V2 switches a model file records (the episode length is not one of them).
fn settings_json(s: &Settings) -> Value {
    let mut v = json!(s);
    if let Some(m) = v.as_object_mut() {
        m.remove("max_steps");
    }
    v
}

/// The built-in V2 layout with `l`'s terrain.
fn matching_v2_builtin(l: &V2Layout) -> Option<&'static str> {
    V2Layout::builtin_names().find(|n| {
        V2Layout::builtin(n).is_some_and(|b| b.width == l.width && b.tiles == l.tiles && b.recipes == l.recipes)
    })
}

impl RlGame for OvercookedV2 {
    type Encoder = V2View;
    const ENCODERS: &'static [&'static str] = &[V2_VIEW];

    fn encoder(&self, name: &str) -> Result<V2View, EncoderError> {
        if name != V2_VIEW {
            return Err(EncoderError::Unknown {
                name: name.to_string(),
                game: "overcooked_v2",
                known: Self::ENCODERS.join(", "),
            });
        }
        V2View::new(Arc::clone(&self.layout), &self.settings).map_err(|e| EncoderError::TooLarge(e.to_string()))
    }

    fn shaped(&self, outcome: &Self::Outcome) -> [i32; 2] {
        [outcome.shaped[0], outcome.shaped[1]]
    }

    fn layout_name(&self) -> String {
        self.layout.name.clone()
    }

    fn model_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("game".into(), json!("overcooked_v2"));
        m.insert("settings".into(), settings_json(&self.settings));
        m
    }

    fn check_model(&self, info: &Value) -> Result<(), ModelMismatch> {
        let game = recorded_game(info);
        if game != "overcooked_v2" {
            return Err(ModelMismatch(format!("trained on game {game:?}, this is OvercookedV2")));
        }
        let recorded = info.get("layout").and_then(Value::as_str).unwrap_or("");
        let same = match V2Layout::builtin(recorded) {
            Some(b) => b.width == self.layout.width && b.tiles == self.layout.tiles && b.recipes == self.layout.recipes,
            None => recorded == self.layout.name,
        };
        if !same {
            return Err(ModelMismatch(format!("trained on layout v2:{recorded}, this is v2:{}", self.layout.name)));
        }
        let want = settings_json(&self.settings);
        let had = info.get("settings").cloned().unwrap_or(Value::Null);
        if had != want {
            return Err(ModelMismatch(format!("trained with the V2 switches {had}, this game has {want}")));
        }
        Ok(())
    }

    fn shipped_layout(&self) -> Option<String> {
        matching_v2_builtin(&self.layout).map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Layout;

    #[test]
    fn model_checks_name_what_differs() {
        let g = Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400);
        assert!(g.check_model(&json!({"layout": "cramped_room"})).is_ok());
        let e = g.check_model(&json!({"layout": "counter_circuit"})).unwrap_err().0;
        assert!(e.contains("counter_circuit") && e.contains("cramped_room"), "{e}");
        assert!(g.check_model(&json!({"layout": "cramped_room", "game": "overcooked_v2"})).is_err());
        assert_eq!(g.shipped_layout().as_deref(), Some("cramped_room"));
        let v2 = OvercookedV2::new(Arc::new(V2Layout::builtin("cramped_room_v2").unwrap()), Settings::default());
        let mut info = json!({"layout": "cramped_room_v2"});
        info.as_object_mut().unwrap().extend(v2.model_fields());
        assert!(v2.check_model(&info).is_ok());
        let radius = OvercookedV2::new(
            Arc::clone(&v2.layout),
            Settings { view_radius: Some(2), max_steps: 100, ..Settings::default() },
        );
        let e = radius.check_model(&info).unwrap_err().0;
        assert!(e.contains("view_radius"), "{e}");
        assert!(v2.check_model(&json!({"layout": "cramped_room"})).unwrap_err().0.contains("game"));
        assert!(v2.encoder(FEATURES62).is_err() && g.encoder(V2_VIEW).is_err());
    }
}

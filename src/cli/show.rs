use super::common::load_layout;
use anyhow::Result;
use proagent::env::render::render;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Layout name (cramped_room, asymmetric_advantages, coordination_ring,
    /// forced_coordination, counter_circuit, or an old alias) or a path to a layout file.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
}

pub fn run(a: ShowArgs) -> Result<ExitCode> {
    let layout = load_layout(&a.layout)?;
    let state = layout.start_state();
    println!("{} ({}x{})", layout.name, layout.width, layout.height);
    print!("{}", render(&layout, &state));
    Ok(ExitCode::SUCCESS)
}

use super::common::{load_layout, load_v2_layout};
use anyhow::Result;
use proagent::env::render::render;
use serde_json::json;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Layout name (cramped_room, asymmetric_advantages, coordination_ring,
    /// forced_coordination, counter_circuit, or an old alias) or a path to a layout file;
    /// `v2:NAME` or `v2:PATH` for an OvercookedV2 layout.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// OvercookedV2 layouts: print the layout's facts (size, players, ingredients, recipes)
    /// as one JSON object instead of the board.
    #[arg(long)]
    json: bool,
    /// Print the names of the built-in OvercookedV2 layouts, one per line.
    #[arg(long)]
    v2_list: bool,
}

pub fn run(a: ShowArgs) -> Result<ExitCode> {
    if a.v2_list {
        for n in proagent::env_v2::Layout::builtin_names() {
            println!("{n}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(spec) = proagent::env_v2::layout::strip_v2_prefix(&a.layout) {
        let (layout, _) = load_v2_layout(spec)?;
        if a.json {
            let names = &layout.ingredient_names;
            println!(
                "{}",
                json!({
                    "layout": format!("v2:{}", layout.name),
                    "width": layout.width,
                    "height": layout.height,
                    "players": layout.num_agents(),
                    "ingredients": names,
                    "recipes": layout.recipes.iter().map(|r| r.describe(names)).collect::<Vec<_>>(),
                    "grid": layout.grid,
                })
            );
            return Ok(ExitCode::SUCCESS);
        }
        let settings = proagent::env_v2::Settings::default();
        // Show the first recipe of the list; episodes draw theirs.
        struct First;
        impl proagent::env_v2::Chance for First {
            fn pick(&mut self, _n: usize) -> usize {
                0
            }
        }
        let state = layout.start_state(&settings, &mut First);
        println!("v2:{} ({}x{})", layout.name, layout.width, layout.height);
        print!("{}", proagent::env_v2::render::render(&layout, &state));
        let recipes: Vec<String> = layout.recipes.iter().map(|r| r.describe(&layout.ingredient_names)).collect();
        println!("possible recipes: {}", recipes.join("; "));
        return Ok(ExitCode::SUCCESS);
    }
    if a.json {
        anyhow::bail!("--json applies to OvercookedV2 layouts (--layout v2:NAME)");
    }
    let layout = load_layout(&a.layout)?;
    let state = layout.start_state();
    println!("{} ({}x{})", layout.name, layout.width, layout.height);
    print!("{}", render(&layout, &state));
    Ok(ExitCode::SUCCESS)
}

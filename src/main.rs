use std::process::ExitCode;

mod cli;

/// The system allocator, counting what each thread keeps: `serve` weighs the episodes it
/// keeps open by the memory they hold (see `proagent_web::memory`).
#[global_allocator]
static HEAP: proagent_web::memory::Counting = proagent_web::memory::Counting;

fn main() -> ExitCode {
    cli::main()
}

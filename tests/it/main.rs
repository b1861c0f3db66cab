//! The integration tests, in one binary: one link of the library and its dependencies
//! instead of one per file (faster builds, a fraction of the disk).

mod agent_cli;
mod analyze_cli;
mod architecture;
mod bc_cli;
mod eval_cli;
mod eval_http;
mod foundation_cli;
mod llm_cli;
mod llm_http;
mod play_cli;
mod qa_cli;
mod qa_http;
mod qa_lib;
mod rl_cli;
mod transcript_cli;

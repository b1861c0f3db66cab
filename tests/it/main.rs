//! The integration tests, in one binary: one link of the library and its dependencies
//! instead of one per file (faster builds, a fraction of the disk).

/// The allocator of the `proagent` binary, so in-process servers measure what they keep
/// as the binary does.
#[global_allocator]
static HEAP: proagent_web::memory::Counting = proagent_web::memory::Counting;

mod agent_cli;
mod analyze_cli;
mod architecture;
mod bad_flags;
mod bc_cli;
mod build_profile;
mod catalog;
mod collab_cli;
mod compat;
mod cost_cli;
mod eval_cli;
mod eval_http;
mod fake_server;
mod foundation_cli;
mod fuzz;
mod fuzz_total;
mod hanabi_cli;
mod http_robustness;
mod lever_cli;
mod limits_cli;
mod llm_cli;
mod llm_http;
mod llmco_cli;
mod llmco_paper;
mod llmco_reply_corpus;
mod llmco_tables;
mod outage;
mod play_cli;
mod plurals_cli;
mod preset_cli;
mod qa_cli;
mod qa_http;
mod qa_lib;
mod reasoning;
mod reply_corpus;
mod rl_cli;
mod structured;
mod support;
mod tls;
mod transcript_cli;
mod unread;
mod v2_cli;
mod viewer_cli;
mod web_browser;
mod web_paths;
mod web_server;

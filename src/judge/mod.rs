//! The judgement: what an invocation's answer is worth against a step's
//! expectations and the host's rules.

pub mod allow;
mod assertions;
pub mod checks;
pub mod conflicts;
mod context;
mod crashes;
pub mod discovery;
pub mod environment;
pub mod escape;
pub mod external_agents;
pub mod formats;
pub mod hookevents;
pub mod hookfire;
pub mod host_word;
pub mod ids;
pub mod lived;
pub mod long_lines;
pub mod moved;
pub mod own_payload;
pub mod own_samples;
pub mod planted;
pub mod positions;
pub mod readonly;
pub mod registration;
pub mod roundtrip;
pub mod same_answer;
pub mod shell;
pub mod userdata;
mod values;

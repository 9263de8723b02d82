//! The judgement: what an invocation's answer is worth against a step's
//! expectations and the host's rules.

pub mod allow;
mod assertions;
pub mod checks;
mod context;
mod crashes;
pub mod discovery;
pub mod environment;
pub mod external_agents;
pub mod formats;
pub mod hookfire;
pub mod ids;
pub mod late;
pub mod moved;
pub mod planted;
pub mod positions;
pub mod readonly;
pub mod registration;
pub mod roundtrip;
pub mod together;
pub mod userdata;
mod values;

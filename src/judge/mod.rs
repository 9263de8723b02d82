//! The judgement: what an invocation's answer is worth against a step's
//! expectations and the host's rules.

pub mod checks;
pub mod discovery;
pub mod formats;
pub mod planted;
pub mod late;
pub mod positions;
pub mod environment;
pub mod roundtrip;
pub mod together;
pub mod userdata;

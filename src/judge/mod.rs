//! The judgement: what an invocation's answer is worth against a step's
//! expectations and the host's rules.

mod assertions;
pub mod checks;
mod context;
mod crashes;
pub mod discovery;
pub mod environment;
pub mod formats;
pub mod late;
pub mod planted;
pub mod positions;
pub mod roundtrip;
pub mod together;
pub mod userdata;
mod values;

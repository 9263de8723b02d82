//! The suite as data: the case model, its loader and validator, templates and
//! fixtures, generated inputs, the schemas and the specification's coverage.

pub mod case;
pub mod coverage;
pub mod fixtures;
pub mod generate;
pub mod lengthen;
pub mod schema;
pub mod template;
pub mod worlds;

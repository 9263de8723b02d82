//! What a finding rests on, as the outcome carries it: the host layer's
//! [`Evidence`] (its cap is a weighing rule of the host's model, and the
//! case model, a layer below this one, names it in `rests_on:`).

pub use crate::host::evidence::Evidence;

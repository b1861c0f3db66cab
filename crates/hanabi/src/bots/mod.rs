//! Rule-based Hanabi partners, each a [`proagent_core::Seat`] that sees only its
//! [`HanabiView`](crate::HanabiView).

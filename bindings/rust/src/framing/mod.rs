//! Framing (placeholder until the framing work lands).

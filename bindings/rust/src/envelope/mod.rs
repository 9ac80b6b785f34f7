//! Envelope (placeholder until the envelope work lands).

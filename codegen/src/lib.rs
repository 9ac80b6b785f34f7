//! Code generation (placeholder until the codegen work lands).

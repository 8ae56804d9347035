//! The context pipeline: `ContextRequest → ContextPlan`, fingerprints, grants, prompt text and
//! the context tools' logic. Pure and UI-free; uses only `vault`.

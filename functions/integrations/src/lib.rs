//! The voice platform's intake (issue 9, in progress): the signed call events it delivers.
//! The route, its store and the wiring into `local-api` and `template.yaml` follow.

pub mod events;

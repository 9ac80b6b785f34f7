//! Judging a whole recorded session at once: the capture's frames, in the
//! order they passed, each with its sender where a sides file says it
//! (`wirekit validate`, `wirekit.Client`'s recordings from Python).

use std::sync::Arc;

use super::{Problem, SessionChecker};
use crate::capture::Sides;
use crate::framing::{FrameReader, ReadError};
use crate::validate::Protocol;

/// What [`judge`] found: how many frames the capture holds (a framing
/// fault counts as one) and every problem, in frame order.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// The frames read, faults included; 0 for an empty capture.
    pub frames: usize,
    /// Every problem of both sides, errors and warnings.
    pub problems: Vec<Problem>,
}

/// Judges `capture` (both directions of a session, framed as the protocol
/// frames them) against `protocol`; `sides` says who sent which bytes, so
/// each message's direction is checked and its faults blamed on its
/// sender. Reading a byte slice cannot fail; the frame bound holds, so a
/// capture of any size is read in bounded pieces.
pub fn judge(protocol: &Arc<Protocol>, capture: &[u8], sides: Option<&Sides>) -> Judgement {
    let transport = &protocol.manifest().transport;
    let mut reader = FrameReader::new(capture, transport.framing, transport.frame_limits());
    let mut checker = SessionChecker::new(Arc::clone(protocol));
    loop {
        // The frame's first byte follows the previous frame's last.
        let sender = sides.and_then(|s| s.sender_at(reader.consumed()));
        match reader.read_frame() {
            Ok(None) => break,
            Ok(Some(frame)) => checker.on_frame_from(Ok(frame), sender),
            Err(ReadError::Framing(fault)) => checker.on_frame_from(Err(fault), sender),
            // A slice does not fail to read; were it to, the capture ends there.
            Err(ReadError::Io(_)) => break,
        }
    }
    let frames = checker.frames();
    let problems = checker.finish().to_vec();
    Judgement { frames, problems }
}

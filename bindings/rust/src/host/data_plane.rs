//! The host's end of the driver protocol's companion data plane
//! ([`crate::dataplane`]): a Unix socket offered to the server in its
//! environment, accepted once the server connects (while it handles
//! `driver.prepare`), and read when an observation names a `data_stream`:
//! the observation announces the stream, the host then reads that stream's
//! frames until its final one, handing each to the caller's sink, so a
//! payload of any size passes in one frame's memory.
//!
//! Where there is no Unix socket (not Unix) no plane is offered: the server
//! finds no `WIREKIT_DATA_SOCKET` and sends its payloads inline.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::error::{HostError, HostErrorKind};
use crate::dataplane::{
    DataDecoder, DataFrame, DEFAULT_MAX_DATA_FRAME_BYTES, LIMIT_ENV, SOCKET_ENV,
};

/// Receives each data frame as it arrives (stream id, sequence, payload).
pub type DataSink = dyn FnMut(&DataFrame) + Send;

/// The plane's state on the host.
pub(super) struct DataPlane {
    #[cfg(unix)]
    listener: std::os::unix::net::UnixListener,
    #[cfg(unix)]
    connection: Option<std::os::unix::net::UnixStream>,
    dir: PathBuf,
    decoder: DataDecoder,
    sink: Box<DataSink>,
}

impl Drop for DataPlane {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A data plane offered to a server before it is spawned.
pub struct DataPlaneOffer {
    pub(super) plane: DataPlane,
    path: PathBuf,
    max_frame_bytes: usize,
}

impl DataPlaneOffer {
    /// Listens on a fresh Unix socket; frames carry at most
    /// `max_frame_bytes` (the protocol's 256 KiB when higher). `sink`
    /// receives every frame. Fails where Unix sockets are not available.
    pub fn new(max_frame_bytes: usize, sink: Box<DataSink>) -> Result<Self, HostError> {
        let io = |e: std::io::Error| HostError::new(HostErrorKind::Io, format!("data plane: {e}"));
        static OFFERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "wirekit-data-{}-{}",
            std::process::id(),
            OFFERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(io)?;
        let path = dir.join("plane.sock");
        #[cfg(unix)]
        {
            let listener = std::os::unix::net::UnixListener::bind(&path).map_err(io)?;
            listener.set_nonblocking(true).map_err(io)?;
            let max = max_frame_bytes.min(DEFAULT_MAX_DATA_FRAME_BYTES);
            Ok(DataPlaneOffer {
                plane: DataPlane {
                    listener,
                    connection: None,
                    dir,
                    decoder: DataDecoder::new(max),
                    sink,
                },
                path,
                max_frame_bytes: max,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = (sink, path, dir);
            Err(HostError::new(
                HostErrorKind::Io,
                "data plane: Unix sockets are not available here; drivers send payloads inline",
            ))
        }
    }

    /// Names the socket and the bound in `command`'s environment.
    pub fn offer_to(&self, command: &mut Command) {
        command
            .env(SOCKET_ENV, &self.path)
            .env(LIMIT_ENV, self.max_frame_bytes.to_string());
    }
}

impl DataPlane {
    #[cfg(unix)]
    pub(super) fn read_stream(
        &mut self,
        stream: &str,
        invocation: &str,
        attempt: &str,
        limit: Duration,
    ) -> Result<(), HostError> {
        let fault = |message: String| HostError::new(HostErrorKind::DataPlane, message);
        self.decoder.announce(stream, invocation, attempt);
        let deadline = Instant::now() + limit;
        if self.connection.is_none() {
            loop {
                match self.listener.accept() {
                    Ok((connection, _)) => {
                        connection
                            .set_nonblocking(false)
                            .map_err(|e| fault(format!("data plane: {e}")))?;
                        self.connection = Some(connection);
                        break;
                    }
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            && Instant::now() < deadline =>
                    {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => {
                        return Err(fault(format!(
                            "the server never connected to the data plane: {e}"
                        )))
                    }
                }
            }
        }
        let Some(connection) = self.connection.as_mut() else {
            return Ok(());
        };
        let mut chunk = vec![0u8; 64 * 1024];
        while !self.decoder.is_closed(stream) {
            if let Some(error) = self.decoder.fault() {
                return Err(fault(format!("data plane lost: {error}")));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(fault(format!(
                    "data stream `{stream}` did not end within {} ms",
                    limit.as_millis()
                )));
            }
            connection
                .set_read_timeout(Some(left))
                .map_err(|e| fault(format!("data plane: {e}")))?;
            let read = match connection.read(&mut chunk) {
                Ok(0) => {
                    return Err(match self.decoder.finish() {
                        Err(error) => fault(format!("data plane: {error}")),
                        Ok(()) => fault(format!(
                            "the data plane closed before stream `{stream}` ended"
                        )),
                    })
                }
                Ok(read) => read,
                Err(e) => return Err(fault(format!("data plane: reading stream `{stream}`: {e}"))),
            };
            for frame in self.decoder.push(&chunk[..read]) {
                match frame {
                    Ok(frame) => (self.sink)(&frame),
                    Err(error) => return Err(fault(format!("data plane: {error}"))),
                }
            }
        }
        Ok(())
    }

    #[cfg(not(unix))]
    pub(super) fn read_stream(
        &mut self,
        stream: &str,
        _: &str,
        _: &str,
        _: Duration,
    ) -> Result<(), HostError> {
        Err(HostError::new(
            HostErrorKind::DataPlane,
            format!("data stream `{stream}`: no data plane on this platform"),
        ))
    }
}

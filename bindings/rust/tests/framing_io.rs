//! The `std::io` adapters: chunked and interrupted reads, faults that end or
//! do not end the stream, I/O errors, and flushing writes.

use std::io::{self, Read, Write};

use wirekit::framing::{FaultKind, FrameLimits, FrameReader, FrameWriter, Framing, ReadError};

/// A reader handing out at most `step` bytes a call, failing on schedule.
struct Scripted {
    data: Vec<u8>,
    pos: usize,
    step: usize,
    calls: usize,
    /// Calls (1-based) that fail with this error kind instead of reading.
    fail_on: Vec<(usize, io::ErrorKind)>,
}

impl Scripted {
    fn new(data: &[u8], step: usize) -> Self {
        Scripted {
            data: data.to_vec(),
            pos: 0,
            step,
            calls: 0,
            fail_on: Vec::new(),
        }
    }
}

impl Read for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if let Some((_, kind)) = self.fail_on.iter().find(|(call, _)| *call == self.calls) {
            return Err(io::Error::new(*kind, "scripted failure"));
        }
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn bodies(reader: impl Iterator<Item = Result<wirekit::framing::Frame, ReadError>>) -> Vec<String> {
    reader
        .map(|r| {
            r.map(|f| f.into_body())
                .unwrap_or_else(|e| format!("ERR {e}"))
        })
        .collect()
}

#[test]
fn reads_frames_whatever_the_chunk_and_read_sizes() {
    let wire = b"Content-Length: 2\r\n\r\n{}Content-Length: 10\r\n\r\n{\"a\":\"\xc3\xa9\"}";
    for step in [1, 2, 5, 100] {
        for chunk in [1, 3, 8192] {
            let reader = FrameReader::new(
                Scripted::new(wire, step),
                Framing::ContentLength,
                FrameLimits::content_length_default(),
            )
            .with_chunk_size(chunk);
            assert_eq!(bodies(reader), ["{}", "{\"a\":\"é\"}"]);
        }
    }
}

#[test]
fn interrupted_reads_are_retried() {
    let mut source = Scripted::new(b"[1]\n[2]", 2);
    source.fail_on = vec![
        (1, io::ErrorKind::Interrupted),
        (3, io::ErrorKind::Interrupted),
    ];
    let reader = FrameReader::new(source, Framing::Ndjson, FrameLimits::ndjson_default());
    assert_eq!(bodies(reader), ["[1]", "[2]"]);
}

#[test]
fn io_errors_surface_and_reading_can_resume() {
    let mut source = Scripted::new(b"[1]\n[2]\n", 2);
    source.fail_on = vec![(2, io::ErrorKind::WouldBlock)];
    let mut reader = FrameReader::new(source, Framing::Ndjson, FrameLimits::ndjson_default());
    let error = reader.read_frame().expect_err("an I/O error");
    assert!(matches!(&error, ReadError::Io(e) if e.kind() == io::ErrorKind::WouldBlock));
    assert_eq!(error.fault_kind(), None);
    assert!(std::error::Error::source(&error).is_some());
    assert_eq!(bodies(reader), ["[1]", "[2]"]);
}

#[test]
fn a_stream_ending_fault_stops_reading() {
    let mut wire = b"Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n".to_vec();
    wire.extend_from_slice(&[b'z'; 100_000]);
    let mut reader = FrameReader::new(
        Scripted::new(&wire, 16),
        Framing::ContentLength,
        FrameLimits::content_length_default(),
    )
    .with_chunk_size(16);
    assert_eq!(
        reader.read_frame().ok().flatten().map(|f| f.into_body()),
        Some("{}".into())
    );
    let error = reader.read_frame().expect_err("a framing error");
    assert_eq!(error.fault_kind(), Some(FaultKind::BadContentLength));
    assert!(matches!(&error, ReadError::Framing(f) if f.ends_stream() && f.offset() == 23));
    assert!(error.to_string().contains("BadContentLength"));
    let calls = reader.get_ref().calls;
    for _ in 0..3 {
        assert!(matches!(reader.read_frame(), Ok(None)));
    }
    assert_eq!(reader.get_ref().calls, calls, "read after the stream ended");
}

#[test]
fn ndjson_faults_do_not_end_the_stream() {
    let wire = b"{}\n\n\xff\n[]";
    let reader = FrameReader::new(&wire[..], Framing::Ndjson, FrameLimits::ndjson_default());
    let items: Vec<_> = reader
        .map(|r| r.map(|f| f.into_body()).map_err(|e| e.fault_kind()))
        .collect();
    assert_eq!(
        items,
        vec![
            Ok("{}".into()),
            Err(Some(FaultKind::EmptyFrame)),
            Err(Some(FaultKind::BodyNotUtf8)),
            Ok("[]".into()),
        ]
    );
}

#[test]
fn end_of_input_is_sticky() {
    let mut reader = FrameReader::new(&b"{}"[..], Framing::Ndjson, FrameLimits::ndjson_default());
    assert!(matches!(reader.read_frame(), Ok(Some(_))));
    assert!(matches!(reader.read_frame(), Ok(None)));
    assert!(matches!(reader.read_frame(), Ok(None)));
}

/// A writer recording what was flushed.
#[derive(Default)]
struct Recorder {
    pending: Vec<u8>,
    flushed: Vec<Vec<u8>>,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(5); // short writes
        self.pending.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flushed.push(std::mem::take(&mut self.pending));
        Ok(())
    }
}

#[test]
fn writer_writes_whole_frames_and_flushes_each() {
    let mut writer = FrameWriter::new(Recorder::default(), Framing::ContentLength);
    writer.write_frame(b"{}").expect("written");
    writer.write_frame("\"é\"".as_bytes()).expect("written");
    let recorder = writer.into_inner();
    assert_eq!(
        recorder.flushed,
        vec![
            b"Content-Length: 2\r\n\r\n{}".to_vec(),
            b"Content-Length: 4\r\n\r\n\"\xc3\xa9\"".to_vec(),
        ]
    );
}

#[test]
fn writer_refusals_write_nothing() {
    let limits = FrameLimits::ndjson_default().with_max_frame_bytes(4);
    let mut writer = FrameWriter::with_limits(Recorder::default(), Framing::Ndjson, limits);
    for (body, kind) in [
        (&b"{\n}"[..], FaultKind::EmbeddedNewline),
        (b"12345", FaultKind::FrameTooLong),
        (b"", FaultKind::EmptyFrame),
        (b"\xff", FaultKind::BodyNotUtf8),
    ] {
        let error = writer.write_frame(body).expect_err("refused");
        assert_eq!(error.fault_kind(), Some(kind));
    }
    writer.write_frame(b"[1]").expect("written");
    assert_eq!(writer.get_ref().flushed, vec![b"[1]\n".to_vec()]);
}

#[test]
fn frames_written_read_back() {
    for framing in Framing::ALL {
        let mut writer = FrameWriter::new(Vec::new(), framing);
        let messages = ["{\"id\":1}", "{\"k\":\"日本\"}", "[]"];
        for message in messages {
            writer.write_frame(message.as_bytes()).expect("written");
        }
        let wire = writer.into_inner();
        let reader = FrameReader::new(&wire[..], framing, framing.default_limits());
        assert_eq!(bodies(reader), messages);
    }
}

//! Requests answered from their params' text (`Handler::handle_params_text`):
//! where the serve loop takes that path, and where it falls back.

use serde_json::value::RawValue;

use super::Server;
use crate::envelope::{self, ErrorObject, RequestText};
use crate::serve::handler::Handler;
use crate::serve::Flow;

impl Server {
    /// A request whose params were kept as text: answered from that text by
    /// the handler when it can (`Handler::handle_params_text`), else by the
    /// usual path on the request with its params parsed
    /// (`RequestText::to_request`: the request `decode_str` gives), which
    /// then checks and reports everything.
    pub(super) fn on_kept_request<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        request: RequestText<'_>,
        body: &str,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        if let Some(answer) = self.answer_from_text(handler, &request) {
            return self.answer_encoded(&request.id, &request.method, answer, send);
        }
        match request.to_request() {
            Some(request) => self.on_request(handler, request, send),
            // A kept text always parses; should it not, the whole body's
            // decode answers.
            None => self.on_decoded(
                handler,
                body,
                envelope::decode_str(body, &self.envelope),
                send,
            ),
        }
    }

    /// The handler's answer from the params' text, for a request the usual
    /// path would answer through `handle_encoded` after the same checks:
    /// a known request method, not streamed, allowed now by the lifecycle,
    /// whose params the session does not read (so admitting it reads
    /// nothing), implemented and answered encoded. `None` for the usual
    /// path (nothing has been called then).
    fn answer_from_text<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        request: &RequestText<'_>,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        let method = request.method.as_str();
        let streamed = self.request_spec(method)?.result_stream.is_some();
        if streamed
            || self.session.reads_params(method)
            || !handler.implements(method)
            || !self.encoded_answer(handler, method)
        {
            return None;
        }
        self.session.check(method).ok()?;
        self.session.admit(method, None).ok()?;
        handler.handle_params_text(method, request.params)
    }
}

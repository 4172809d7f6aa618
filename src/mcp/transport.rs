//! stdin and stdout as the MCP transport: one JSON-RPC message a line, and every line
//! answered.
//!
//! The SDK's own stdio transport (`rmcp::transport::async_rw`) passes over a line
//! that is not JSON, and one longer than its limit, without a word: a client that
//! sent a request there waits for its answer for ever. Here a line that is not JSON
//! is answered with a parse error (-32700), JSON that is not a message of the
//! protocol and a line over [`MAX_LINE_BYTES`] with an invalid request (-32600; the
//! request's id when it can be read), and the server goes on. A notification that
//! does not fit the protocol is let go: a notification has no answer.
//!
//! A line over the limit is never held whole: what is past the limit is read and
//! dropped up to its newline.

use std::sync::Arc;

use rmcp::model::{ErrorCode, ErrorData, NumberOrString, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line (one message) read: `wf mcp`'s requests are a few hundred bytes,
/// and a line past this is refused rather than held in memory.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// What one bounded read of a line found.
enum Read {
    /// A line is in the buffer (without its newline).
    Line,
    /// A line over the limit was dropped.
    Oversized,
    /// The client closed stdin, or it cannot be read.
    End,
}

pub struct Lines<R, W> {
    read: BufReader<R>,
    /// The line being read. It survives a cancelled read: `receive` is polled in a
    /// `select!` that drops it whenever something else is ready, and the next call
    /// goes on with the same line.
    line: Vec<u8>,
    /// Dropping the rest of a line over the limit, up to its newline.
    discarding: bool,
    write: Arc<Mutex<W>>,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Reads into `self.line` up to a newline, never past [`MAX_LINE_BYTES`].
    /// Cancel-safe: the bytes taken from the reader are in `self.line` before the
    /// next await.
    async fn read_line(&mut self) -> Read {
        loop {
            let Ok(available) = self.read.fill_buf().await else {
                return Read::End;
            };
            if available.is_empty() {
                // A last line without its newline is a line too.
                let last = !self.line.is_empty() && !self.discarding;
                self.discarding = false;
                return if last { Read::Line } else { Read::End };
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let (content, take) =
                newline.map_or((available.len(), available.len()), |at| (at, at + 1));
            let mut found = None;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len() + content > MAX_LINE_BYTES {
                self.line.clear();
                self.discarding = newline.is_none();
                found = Some(Read::Oversized);
            } else {
                self.line.extend_from_slice(&available[..content]);
                if newline.is_some() {
                    found = Some(Read::Line);
                }
            }
            self.read.consume(take);
            if let Some(found) = found {
                return found;
            }
        }
    }

    /// Writes the error answer and a newline, whole, beside whatever else is being
    /// sent: a task of its own, so a `receive` dropped meanwhile cannot cut it short.
    fn answer(&self, refusal: Refusal) {
        let message = TxJsonRpcMessage::<RoleServer>::error(
            ErrorData::new(refusal.code, refusal.message, None),
            refusal.id,
        );
        let write = Arc::clone(&self.write);
        tokio::spawn(async move {
            let _ = write_message(&write, &message).await;
        });
    }
}

async fn write_message<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

/// The error a line is answered with: its code, what is wrong, and the id of the
/// request it answers when that can be read.
struct Refusal {
    code: ErrorCode,
    message: String,
    id: Option<RequestId>,
}

/// What a line holds: a message, nothing to answer, or the error to answer with.
fn judge(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleServer>>, Refusal> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let value: Value = serde_json::from_slice(line).map_err(|e| Refusal {
        code: ErrorCode::PARSE_ERROR,
        message: format!("not JSON: {e}"),
        id: None,
    })?;
    let id = request_id(&value);
    match serde_json::from_value(value.clone()) {
        Ok(message) => Ok(Some(message)),
        // A notification has no answer, even an unknown one.
        Err(_) if id.is_none() && value.get("method").is_some_and(Value::is_string) => Ok(None),
        Err(e) => Err(Refusal {
            code: ErrorCode::INVALID_REQUEST,
            message: format!("not a JSON-RPC message of MCP: {e}"),
            id,
        }),
    }
}

/// The id of a request that is JSON but not a message, so its error can name it.
fn request_id(value: &Value) -> Option<RequestId> {
    match value.get("id")? {
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        _ => None,
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move { write_message(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Read::End => return None,
                Read::Oversized => self.answer(Refusal {
                    code: ErrorCode::INVALID_REQUEST,
                    message: format!(
                        "the request is over the size limit of {MAX_LINE_BYTES} bytes; nothing of it was done"
                    ),
                    id: None,
                }),
                Read::Line => {
                    let judged = judge(&self.line);
                    self.line.clear();
                    match judged {
                        Ok(Some(message)) => return Some(message),
                        Ok(None) => {}
                        Err(error) => self.answer(error),
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(refusal: Refusal) -> (i32, Option<RequestId>) {
        (refusal.code.0, refusal.id)
    }

    #[test]
    fn each_line_is_a_message_nothing_or_the_error_to_answer() {
        assert!(matches!(judge(b""), Ok(None)));
        assert!(matches!(judge(b"  \r"), Ok(None)));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Some(_))
        ));
        // A notification whose params do not fit is let go: it has no answer.
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#),
            Ok(None)
        ));
        assert_eq!(code(judge(b"nope").unwrap_err()), (-32700, None));
        assert_eq!(code(judge(b"\xff").unwrap_err()), (-32700, None));
        assert_eq!(
            code(judge(br#"{"jsonrpc":"2.0","id":"a","method":3}"#).unwrap_err()),
            (-32600, Some(NumberOrString::String("a".into())))
        );
        assert_eq!(code(judge(b"[1, 2]").unwrap_err()), (-32600, None));
    }

    /// Lines read through a reader that gives a few bytes at a time.
    async fn lines_of(input: Vec<u8>) -> Vec<&'static str> {
        let (client, server) = tokio::io::duplex(7);
        let writer = tokio::spawn(async move {
            let mut client = client;
            client.write_all(&input).await.unwrap();
        });
        let mut lines = Lines::new(server, tokio::io::sink());
        let mut seen = Vec::new();
        loop {
            match lines.read_line().await {
                Read::End => break,
                Read::Oversized => seen.push("oversized"),
                Read::Line => {
                    seen.push(if lines.line.len() <= 8 {
                        "short"
                    } else {
                        "long"
                    });
                    lines.line.clear();
                }
            }
        }
        writer.await.unwrap();
        seen
    }

    #[test]
    fn a_line_over_the_limit_is_dropped_once_and_the_next_is_read() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut input = b"one\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        input.extend(b"\ntwo\n");
        input.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES));
        input.extend(b"\nlast");
        assert_eq!(
            runtime.block_on(lines_of(input)),
            ["short", "oversized", "short", "long", "short"]
        );
    }
}

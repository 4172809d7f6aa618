//! The HTTP side of `wf ui`: the accept loop, the guard every request passes, the
//! routes, and the page's files with the headers that keep it to its own origin.
//!
//! The guard, in order: the `Host` must be the one the server was reached by
//! (`127.0.0.1:PORT` or `localhost:PORT`: a page of another site that rebinds a DNS
//! name to 127.0.0.1 names its own host), an `Origin` or `Sec-Fetch-Site` must say
//! the request comes from this origin, every `/api/` request carries the token, and
//! a write is a JSON `POST` while the server is not read-only. The page's files need
//! no token: they hold nothing of the workflow.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tiny_http::{Header, Method, Request, Response};

use super::Ctx;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// No script but the page's own file, no style but its own, no request but to this
/// origin, no frame around it.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Requests handled at once (each on a thread; an event stream keeps its thread).
const MAX_REQUESTS: usize = 64;

/// The largest body a write may have.
const MAX_BODY: u64 = 64 * 1024;

/// Takes requests until a signal asks to stop, each on a thread of its own.
pub(super) fn run(server: &tiny_http::Server, ctx: &Arc<Ctx>) {
    let active = Arc::new(AtomicUsize::new(0));
    while crate::run::signals::count() == 0 {
        let Ok(Some(request)) = server.recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        if active.load(Ordering::SeqCst) >= MAX_REQUESTS {
            let _ = request.respond(error(503, "too many requests at once; try again"));
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (ctx, done) = (Arc::clone(ctx), Arc::clone(&active));
        let spawned = std::thread::Builder::new()
            .name("wf-ui".into())
            .spawn(move || {
                handle(&ctx, request);
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn handle(ctx: &Ctx, mut request: Request) {
    let (path, query) = split_url(request.url());
    if let Err((code, why)) = guard(ctx, &request, &path, &query) {
        let _ = request.respond(error(code, &why));
        return;
    }
    let get = *request.method() == Method::Get;
    let asset = match (get, path.as_str()) {
        (true, "/") => Some((INDEX_HTML, "text/html; charset=utf-8", 200)),
        (true, "/app.js") => Some((APP_JS, "text/javascript; charset=utf-8", 200)),
        (true, "/app.css") => Some((APP_CSS, "text/css; charset=utf-8", 200)),
        (true, "/favicon.ico") => Some(("", "image/x-icon", 204)),
        _ => None,
    };
    if let Some((text, content_type, code)) = asset {
        let response = Response::from_data(text.as_bytes().to_vec()).with_status_code(code);
        let _ = request.respond(with_headers(response, content_type));
        return;
    }
    let response = match (get, path.as_str()) {
        (true, "/api/stream") => {
            let last = header(&request, "Last-Event-ID")
                .and_then(|v| v.trim().parse().ok())
                .or_else(|| param(&query, "after").and_then(|v| v.parse().ok()))
                .unwrap_or(0);
            super::stream::serve(ctx, request.into_writer(), last);
            return;
        }
        (true, "/api/actions") => Ok(ctx.actions.list()),
        (false, "/api/actions") => read_body(&mut request)
            .and_then(|body| super::actions::start(ctx, &body).map_err(|e| (e.status, e.message))),
        (true, _) => super::view::route(ctx, &path, &query),
        (false, _) => Err((405, format!("{path} takes GET"))),
    };
    let response = match response {
        Ok(value) => json_response(200, &value),
        Err((code, why)) => error(code, &why),
    };
    let _ = request.respond(response);
}

/// Why a request is refused, if it is: the status and one line.
fn guard(
    ctx: &Ctx,
    request: &Request,
    path: &str,
    query: &[(String, String)],
) -> Result<(), (u16, String)> {
    let host = header(request, "Host").unwrap_or_default();
    if !ctx.hosts.contains(&host) {
        return Err((
            403,
            format!(
                "Host {:?} is not this server's; open http://{}/",
                crate::report::one_line(&host),
                ctx.hosts[0]
            ),
        ));
    }
    if let Some(origin) = header(request, "Origin") {
        if !ctx.hosts.iter().any(|h| origin == format!("http://{h}")) {
            return Err((403, "a request from another origin is refused".into()));
        }
    }
    if header(request, "Sec-Fetch-Site").is_some_and(|s| s == "cross-site" || s == "same-site") {
        return Err((403, "a request from another site is refused".into()));
    }
    let method = request.method();
    if *method != Method::Get && *method != Method::Post {
        return Err((405, format!("{method} is not served; GET or POST")));
    }
    if !path.starts_with("/api/") {
        return Ok(());
    }
    let token = header(request, "X-WF-Token").or_else(|| param(query, "token"));
    if !token.is_some_and(|t| same_secret(&t, &ctx.token)) {
        return Err((
            401,
            "this needs the token of the URL `wf ui` printed (open that URL)".into(),
        ));
    }
    if *method == Method::Post {
        if ctx.read_only {
            return Err((
                403,
                if ctx.workflow.archived {
                    "an archived workflow is read-only".into()
                } else {
                    "wf ui runs --read-only: no writes".into()
                },
            ));
        }
        let json_body = header(request, "Content-Type").is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim() == "application/json")
        });
        if !json_body {
            return Err((
                415,
                "a write is a JSON body (Content-Type: application/json)".into(),
            ));
        }
    }
    Ok(())
}

/// Compares in time independent of where the two differ.
fn same_secret(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn read_body(request: &mut Request) -> Result<Value, (u16, String)> {
    let mut body = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut body)
        .map_err(|e| (400, format!("cannot read the request: {e}")))?;
    if body.len() as u64 > MAX_BODY {
        return Err((413, format!("a write's body is at most {MAX_BODY} bytes")));
    }
    serde_json::from_slice(&body).map_err(|e| (400, format!("the body is not JSON: {e}")))
}

/// A header's value, by name (case-insensitive).
fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_string())
}

/// The path and the decoded query pairs of a request's target.
fn split_url(url: &str) -> (String, Vec<(String, String)>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    (decode(path), pairs)
}

pub(super) fn param(query: &[(String, String)], name: &str) -> Option<String> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// `%XX` and `+` decoded; a broken escape is kept as written.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                bytes.get(i + 1).and_then(|&b| (b as char).to_digit(16)),
                bytes.get(i + 2).and_then(|&b| (b as char).to_digit(16)),
            ) {
                (Some(hi), Some(lo)) => {
                    out.push((hi * 16 + lo) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The headers every answer carries.
pub(super) fn security_headers() -> [(&'static str, &'static str); 6] {
    [
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]
}

fn with_headers<R: Read>(mut response: Response<R>, content_type: &str) -> Response<R> {
    for (name, value) in security_headers()
        .into_iter()
        .chain([("Content-Type", content_type)])
    {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    response
}

fn json_response(code: u16, value: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    let body = serde_json::to_vec(value).unwrap_or_default();
    with_headers(
        Response::from_data(body).with_status_code(code),
        "application/json",
    )
}

fn error(code: u16, why: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    json_response(code, &json!({"error": {"message": why}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_splits_into_its_decoded_path_and_query() {
        let (path, query) = split_url("/api/task?id=T%201%2Fx&token=ab+c&bad=%zz&flag");
        assert_eq!(path, "/api/task");
        assert_eq!(param(&query, "id").as_deref(), Some("T 1/x"));
        assert_eq!(param(&query, "token").as_deref(), Some("ab c"));
        assert_eq!(param(&query, "bad").as_deref(), Some("%zz"));
        assert_eq!(param(&query, "flag").as_deref(), Some(""));
        assert_eq!(decode("%e4%bd%93%"), "体%");
    }

    #[test]
    fn the_token_must_match_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abd", "abc"));
        assert!(!same_secret("ab", "abc"));
        assert!(!same_secret("", "abc"));
    }
}

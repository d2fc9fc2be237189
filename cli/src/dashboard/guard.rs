//! Who may use the dashboard: the token (required off loopback), the Host check that stops DNS
//! rebinding on loopback, and CSRF protection of actions (a per-process token in a header that
//! only same-origin pages can read, plus an Origin check).

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;

/// The header an action (POST) must carry, holding the token served in the page's meta tag and
/// by `GET /api/csrf`.
pub const CSRF_HEADER: &str = "x-leaseq-csrf";
/// The cookie the browser keeps after opening the page with `?token=`.
pub const TOKEN_COOKIE: &str = "leaseq_token";

/// Refuses requests without the token (when one is set), from a foreign Host on loopback, and
/// POSTs without the CSRF header or from another origin. Nothing else runs for a refused request.
pub async fn guard(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if let Some(token) = &app.token {
        let given = bearer(headers).or_else(|| cookie(headers, TOKEN_COOKIE));
        let from_query = req.uri().query().and_then(query_token);
        if let (true, Some(t)) = (req.uri().path() == "/", from_query.as_deref()) {
            if same(t, token) {
                // Keep the token in a cookie and drop it from the address bar.
                let cookie = format!("{TOKEN_COOKIE}={t}; HttpOnly; SameSite=Strict; Path=/");
                return (
                    StatusCode::SEE_OTHER,
                    [
                        (header::SET_COOKIE, cookie),
                        (header::LOCATION, "/".to_owned()),
                    ],
                )
                    .into_response();
            }
        }
        if !given.is_some_and(|g| same(&g, token)) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "a token is required: send `Authorization: Bearer <token>`, or open /?token=<token> once in a browser",
            );
        }
    } else if !loopback_host(headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "this dashboard listens on loopback: open it as localhost or 127.0.0.1",
        );
    }
    if req.method() == Method::POST {
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            let expected = [format!("http://{host}"), format!("https://{host}")];
            if !expected.iter().any(|e| e == origin) {
                return refuse(
                    StatusCode::FORBIDDEN,
                    "refused: the request comes from another origin",
                );
            }
        }
        let csrf = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        if !csrf.is_some_and(|c| same(c, &app.csrf)) {
            return refuse(
                StatusCode::FORBIDDEN,
                "refused: an action needs the `X-Leaseq-Csrf` header (read it from GET /api/csrf)",
            );
        }
    }
    next.run(req).await
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(str::to_owned)
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then(|| v.to_owned())
        })
}

fn query_token(query: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == "token").then(|| v.to_owned())
    })
}

/// Compares secrets in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether the Host header names a loopback host (a rebinding attack brings a foreign name).
fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_secrets() {
        let mut h = HeaderMap::new();
        for (host, ok) in [
            ("127.0.0.1:8080", true),
            ("localhost:1", true),
            ("[::1]:80", true),
            ("evil.example:8080", false),
            ("10.0.0.1", false),
        ] {
            h.insert(header::HOST, host.parse().unwrap());
            assert_eq!(loopback_host(&h), ok, "{host}");
        }
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }
}

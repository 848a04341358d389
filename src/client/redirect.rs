//! What a redirect may do. gw follows redirects by hand (`Client::attempt`) so
//! that nothing of the caller's leaves the gateway's origin: this module
//! decides, for one hop, whether it is followed and what goes with it.
//!
//! The rules:
//! - https -> http is refused, whatever the host (even loopback): a downgrade
//!   is never what a TLS gateway means.
//! - a hop to plain http must pass the same test as the base URL (loopback
//!   reached directly, or `allow_insecure_http`).
//! - a POST is never replayed to another origin (its body is the caller's
//!   prompt), and 301/302/303 to a POST are refused rather than turned into a
//!   GET: either would silently change what the call does.
//! - a GET may go to another origin, but bare: no key, no custom header, no
//!   idempotency key (and a GET has no body).

use crate::api::ops::Method;
use crate::error::Error;
use crate::net::origin::Origin;
use crate::net::route::Route;

/// How a hop is followed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Hop {
    /// Whether the next URL has the base URL's origin (credentials may go there).
    pub same_origin: bool,
}

/// Judges one redirect: `status` and `location` as the server sent them,
/// `next` the absolute URL it resolves to, `current` the URL that answered.
pub(crate) fn judge(
    status: u16,
    method: Method,
    current: &str,
    location: &str,
    next: &str,
    base: &Origin,
    route: &Route,
) -> Result<Hop, Error> {
    let refuse = |why: String| Err(Error::Network(format!("redirect refused: {why}")));
    let target = match Origin::parse(next) {
        Ok(o) => o,
        Err(why) => return refuse(format!("the target {why} (Location: {location})")),
    };
    let from_https = Origin::parse(current).is_ok_and(|o| o.scheme == "https");
    if from_https && target.scheme == "http" {
        return refuse(format!(
            "https:// to plain http:// is a downgrade (Location: {location})"
        ));
    }
    if let Err(e) = route.check_plain_http(&target) {
        return refuse(format!("{e} (Location: {location})"));
    }
    let same_origin = target == *base;
    if method == Method::Post {
        if matches!(status, 301..=303) {
            return refuse(format!(
                "the gateway answered {status} to a POST; gw does not turn a POST into a GET \
                 (Location: {location})"
            ));
        }
        if !same_origin {
            return refuse(format!(
                "a POST is never replayed to another origin (Location: {location})"
            ));
        }
    }
    Ok(Hop { same_origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Origin {
        Origin::parse("https://gw.example").unwrap()
    }

    fn go(status: u16, method: Method, current: &str, next: &str) -> Result<Hop, Error> {
        judge(
            status,
            method,
            current,
            next,
            next,
            &base(),
            &Route::direct(false),
        )
    }

    #[test]
    fn a_post_stays_on_its_origin_and_keeps_its_method() {
        let here = "https://gw.example/v1/chat/completions";
        assert_eq!(
            go(307, Method::Post, here, "https://gw.example/v2/chat"),
            Ok(Hop { same_origin: true })
        );
        assert_eq!(
            go(308, Method::Post, here, "https://gw.example/v2/chat"),
            Ok(Hop { same_origin: true })
        );
        for status in [301, 302, 303] {
            let e = go(status, Method::Post, here, "https://gw.example/x").unwrap_err();
            assert!(
                e.to_string().contains("Location: https://gw.example/x"),
                "{e}"
            );
        }
        let e = go(307, Method::Post, here, "https://other.example/v1/chat").unwrap_err();
        assert!(e.to_string().contains("another origin"), "{e}");
        // Another port is another origin.
        assert!(go(307, Method::Post, here, "https://gw.example:8443/v1/chat").is_err());
    }

    #[test]
    fn a_get_may_leave_but_bare() {
        let here = "https://gw.example/v1/videos/1";
        for status in [301, 302, 303, 307, 308] {
            assert_eq!(
                go(status, Method::Get, here, "https://cdn.example/v.mp4"),
                Ok(Hop { same_origin: false })
            );
        }
    }

    #[test]
    fn https_never_goes_down_to_http() {
        let here = "https://gw.example/v1/videos/1";
        for next in ["http://gw.example/v1/videos/1", "http://127.0.0.1:8080/x"] {
            let e = go(302, Method::Get, here, next).unwrap_err();
            assert!(e.to_string().contains("downgrade"), "{e}");
        }
        let e = judge(
            302,
            Method::Get,
            here,
            "http://h.example/",
            "http://h.example/",
            &base(),
            &Route::direct(true),
        )
        .unwrap_err();
        assert!(e.to_string().contains("downgrade"), "{e}");
    }
}

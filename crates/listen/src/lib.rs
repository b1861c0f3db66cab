//! proagent-listen: the one connection loop of proagent's HTTP servers (the viewer of
//! `proagent serve` and the mock model server), with limits of its own (unlike
//! `axum::serve`): at most [`ConnLimits::max_connections`] open at once (one more is
//! answered `503` and closed at once), a request head must arrive within
//! [`ConnLimits::header_timeout`] (also the longest a kept-alive connection may sit idle
//! between requests), and a client that stops reading its answer for
//! [`ConnLimits::write_timeout`] is dropped. Bodies have their own time-out, applied where
//! they are read (the viewer's `api`, the mock server's handler).
//!
//! Guarantees: however long it runs and whatever clients do, the open connections, the
//! time a silent or non-reading client holds one, and the tasks kept for them are bounded;
//! once the stop future completes no connection is accepted and open ones finish their
//! request.

#![warn(missing_docs)]

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Sleep;

/// Limits of the connections of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// Connections open at once (at most `tokio::sync::Semaphore::MAX_PERMITS`; a larger
    /// number means that many).
    pub max_connections: usize,
    /// Time for a request head to arrive (and the longest idle time of a kept-alive connection).
    pub header_timeout: Duration,
    /// Time for a request body to arrive.
    pub body_timeout: Duration,
    /// Time a client may leave its answer unread before it is dropped.
    pub write_timeout: Duration,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            max_connections: 64,
            header_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
        }
    }
}

/// A TCP stream whose writes fail once no byte could be written for the write time-out.
struct Stalling {
    inner: TcpStream,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl AsyncRead for Stalling {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl Stalling {
    fn watch<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Pending => {
                let limit = self.limit;
                let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                if timer.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading")));
                }
                Poll::Pending
            }
            done => {
                self.stalled = None;
                done
            }
        }
    }
}

impl AsyncWrite for Stalling {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, r)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, r)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Accepts connections on `listener` and serves `app` on each until `stop` completes;
/// then lets open connections finish their request. `name` starts the log lines.
pub async fn run(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: ConnLimits,
    name: &'static str,
    stop: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let (closing_tx, closing_rx) = watch::channel(false);
    let slots = Arc::new(Semaphore::new(limits.max_connections.clamp(1, Semaphore::MAX_PERMITS)));
    let mut conns = JoinSet::new();
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = &mut stop => break,
            // Reap finished connections so the set does not grow with every client.
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
        };
        let mut stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait a little instead of spinning.
                tracing::warn!("{name}: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            // Full: say so and close, without reading the request.
            conns.spawn(async move {
                let body = "{\"error\":\"too many connections to this server; try again\"}";
                let answer = format!(
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(answer.as_bytes())).await;
            });
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        let mut closing = closing_rx.clone();
        conns.spawn(async move {
            let _slot = slot;
            let io = Stalling { inner: stream, limit: limits.write_timeout, stalled: None };
            // HTTP/1 only: the automatic version detection waits for a first byte before
            // any time-out applies, so a silent client would never be dropped.
            let mut builder = Builder::new(TokioExecutor::new()).http1_only();
            builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
            let conn = builder.serve_connection(TokioIo::new(io), service);
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!("{name}: connection closed: {e}");
                    }
                    return;
                }
                _ = closing.wait_for(|c| *c) => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    drop(listener);
    let _ = closing_tx.send(true);
    while conns.join_next().await.is_some() {}
    Ok(())
}

//! open-url-rust URL [FILE]: SchemeBridge from Rust with zbus (Debian 12's zbus 1.9).
//!
//! Asks whether URL can be opened, opens it (OpenURL returns once its handler has started) and,
//! with FILE, asks the content type of that file by passing its descriptor (`h`).
//! Exit status as `schemebridge open`: 0 opened, 1 malformed URL, 2 no such file,
//! 3 no handler or no service, 4 other.
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::process::exit;

use zbus::zvariant::Fd;
use zbus::{Connection, Proxy};

const NAME: &str = "io.github.schemebridge.SchemeBridge1";
const PATH: &str = "/io/github/schemebridge/SchemeBridge1";

/// The exit status for a D-Bus error, by its name (as `schemebridge` maps them).
fn status_for(error_name: &str) -> i32 {
    match error_name.strip_prefix("io.github.schemebridge.SchemeBridge1.Error.") {
        Some("InvalidURL") => 1,
        Some("NoHandler") | Some("ReservedScheme") => 3,
        _ if error_name == "org.freedesktop.DBus.Error.ServiceUnknown" => 3,
        _ => 4,
    }
}

/// Opens `url`, then asks the type of `file`.
fn run(connection: &Connection, url: &str, file: Option<&str>) -> zbus::Result<()> {
    let proxy = Proxy::new(connection, NAME, PATH, NAME)?;

    let can_open: bool = proxy.call("CanOpenURL", &(url,))?;
    println!("can open {}: {}", url, if can_open { "yes" } else { "no" });
    let _: bool = proxy.call("OpenURL", &(url,))?;
    println!("opened {}", url);

    if let Some(path) = file {
        let opened = File::open(path).unwrap_or_else(|e| {
            eprintln!("open-url-rust: {}: {}", path, e);
            exit(2)
        });
        let name = Path::new(path).file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        // zbus sends the descriptor (a dup) with the message; `opened` stays ours.
        let content_type: String = proxy.call("ContentTypeForFile", &(Fd::from(opened.as_raw_fd()), name.as_str()))?;
        println!("type of {}: {}", name, content_type);
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 && args.len() != 3 {
        eprintln!("usage: {} URL [FILE]", args[0]);
        exit(1);
    }
    let connection = Connection::new_session().unwrap_or_else(|e| {
        eprintln!("open-url-rust: cannot connect to the session bus: {}", e);
        exit(3)
    });
    match run(&connection, &args[1], args.get(2).map(String::as_str)) {
        Ok(()) => {}
        // A D-Bus error reply: its name decides the status, its message is for the user.
        Err(zbus::Error::MethodError(name, message, _)) => {
            eprintln!("open-url-rust: {} ({})", message.unwrap_or_default(), name);
            exit(status_for(&name));
        }
        Err(other) => {
            eprintln!("open-url-rust: {}", other);
            exit(4);
        }
    }
}

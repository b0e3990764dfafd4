//! The syncbench command line with `my-netcode` beside the built-in
//! algorithms: `cargo run -p my-netcode -- compare --profile wifi`.

fn main() -> std::process::ExitCode {
    syncbench::Cli::new().algorithm(&my_netcode::MyNetcode).run()
}

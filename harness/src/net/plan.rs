//! The network of a run: one profile per client, the last repeating, and
//! the server's own link.

use super::profile::Profile;
use crate::error::{InputError, Source};
use std::path::PathBuf;

/// The network of a run: one profile per client (the last repeating) and
/// the server's own link (clean by default).
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkPlan {
    /// Per client; the last entry applies to the remaining clients.
    pub clients: Vec<Profile>,
    /// The server's link (client/server runs).
    pub server: Profile,
}

impl NetworkPlan {
    /// Every client on `p`, the server clean.
    pub fn uniform(p: Profile) -> NetworkPlan {
        NetworkPlan { clients: vec![p], server: Profile::clean() }
    }

    /// Resolves a `--profile` argument: one item, or a comma-separated list
    /// with one item per client.
    pub fn resolve(arg: &str, dirs: &[PathBuf]) -> Result<NetworkPlan, InputError> {
        let items: Vec<&str> = arg.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        if items.is_empty() {
            return Err(InputError::at(
                &Source::Inline("--profile".into()),
                None,
                "empty profile: expected a name, a path or a netem string",
            ));
        }
        let clients = items.iter().map(|i| super::derived::resolve(i, dirs)).collect::<Result<Vec<_>, _>>()?;
        Ok(NetworkPlan { clients, server: Profile::clean() })
    }

    /// Client `i`'s profile.
    pub fn client(&self, i: usize) -> &Profile {
        self.clients.get(i).or(self.clients.last()).expect("at least one profile")
    }

    /// A display name: the profile's, or the per-client list.
    pub fn name(&self) -> String {
        let first = &self.clients[0].name;
        if self.clients.iter().all(|p| p.name == *first) {
            first.clone()
        } else {
            self.clients.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(",")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_gives_a_profile_per_client_the_last_repeating() {
        let plan = NetworkPlan::resolve("delay 1ms, delay 2ms,delay 90ms", &[]).unwrap();
        assert_eq!(plan.client(0).uplink.delay_us, 1_000);
        assert_eq!(plan.client(2).uplink.delay_us, 90_000);
        assert_eq!(plan.client(7).uplink.delay_us, 90_000);
        assert_eq!(plan.name(), "delay 1ms,delay 2ms,delay 90ms");
    }
}

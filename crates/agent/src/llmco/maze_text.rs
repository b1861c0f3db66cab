//! The maze games in words, shared by the CollabCapture and CollabEscape groundings and
//! read back by their stand-ins: the map lines of the game description ("room 1 leads to
//! 2, 6") as template variables, and a reader of those lines with breadth-first distances.

use proagent_collab::Maze;
use serde_json::{Value, json};

/// The map as template variables: one `{room, exits}` per room.
pub fn map_vars(maze: &Maze) -> Value {
    let rooms: Vec<Value> =
        (1..=maze.rooms).map(|r| json!({"room": r, "exits": maze.exits.get(r).cloned().unwrap_or_default()})).collect();
    json!(rooms)
}

/// A map read from a game description: the exits of every room (index 0 unused).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapText {
    /// Exits per room.
    pub exits: Vec<Vec<u8>>,
}

impl MapText {
    /// Reads "The map: room 1 leads to 2, 6; room 2 leads to 1, 3." from `text`.
    pub fn read(text: &str) -> MapText {
        let mut exits: Vec<Vec<u8>> = Vec::new();
        let Some(at) = text.find("The map:") else { return MapText { exits } };
        let line = text[at..].lines().next().unwrap_or("");
        for part in line["The map:".len()..].split(';') {
            let part = part.trim().trim_end_matches('.');
            let Some(rest) = part.strip_prefix("room ") else { continue };
            let Some((room, to)) = rest.split_once(" leads to ") else { continue };
            let Ok(room) = room.trim().parse::<usize>() else { continue };
            if room == 0 || room > 255 {
                continue;
            }
            if exits.len() <= room {
                exits.resize(room + 1, Vec::new());
            }
            exits[room] = to.split(',').filter_map(|r| r.trim().parse::<u8>().ok()).collect();
        }
        MapText { exits }
    }

    /// The exits of `room`.
    pub fn exits(&self, room: u8) -> &[u8] {
        self.exits.get(room as usize).map(Vec::as_slice).unwrap_or_default()
    }

    /// Moves from `from` to every room, through passages `open` allows (`u32::MAX`:
    /// unreachable).
    pub fn distances(&self, from: u8, open: impl Fn(u8, u8) -> bool) -> Vec<u32> {
        let most = self.exits.iter().flatten().map(|&r| r as usize + 1).max().unwrap_or(0);
        let n = self.exits.len().max(most).max(from as usize + 1);
        let mut d = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        d[from as usize] = 0;
        queue.push_back(from);
        while let Some(r) = queue.pop_front() {
            for &e in self.exits(r) {
                if (e as usize) < n && d[e as usize] == u32::MAX && open(r, e) {
                    d[e as usize] = d[r as usize] + 1;
                    queue.push_back(e);
                }
            }
        }
        d
    }
}

/// The first number after `marker` in `text`.
pub fn number_after(text: &str, marker: &str) -> Option<u32> {
    let at = text.find(marker)?;
    let rest = &text[at + marker.len()..];
    let digits: String = rest.chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_reads_back() {
        let m = MapText::read(
            "Intro.\nThe map: room 1 leads to 2, 6; room 2 leads to 1; room 3 leads to no other room.\nMore.",
        );
        assert_eq!(m.exits(1), &[2, 6]);
        assert_eq!(m.exits(2), &[1]);
        assert!(m.exits(3).is_empty() && m.exits(9).is_empty());
        let d = m.distances(2, |_, _| true);
        assert_eq!((d[2], d[1], d[6], d[3]), (0, 1, 2, u32::MAX));
        assert_eq!(number_after("I am in room 12. Bob", "I am in room"), Some(12));
    }
}

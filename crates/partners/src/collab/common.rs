//! What the CollabCapture and CollabEscape seats share: shortest paths through the maze.

use proagent_collab::maze::{Maze, Room};

/// Breadth-first search from `from` along the exits `open` allows, exits taken in maze
/// order: for every room its distance (`u32::MAX` when unreachable) and the first move
/// of the first shortest path found to it (0 for `from` and unreachable rooms).
pub fn paths_from(maze: &Maze, from: Room, open: impl Fn(Room, Room) -> bool) -> (Vec<u32>, Vec<Room>) {
    let mut dist = vec![u32::MAX; maze.rooms + 1];
    let mut first = vec![0 as Room; maze.rooms + 1];
    if from as usize == 0 || from as usize > maze.rooms {
        return (dist, first);
    }
    let mut queue = std::collections::VecDeque::from([from]);
    dist[from as usize] = 0;
    while let Some(r) = queue.pop_front() {
        for &n in maze.exits(r) {
            if dist[n as usize] == u32::MAX && open(r, n) {
                dist[n as usize] = dist[r as usize] + 1;
                first[n as usize] = if r == from { n } else { first[r as usize] };
                queue.push_back(n);
            }
        }
    }
    (dist, first)
}

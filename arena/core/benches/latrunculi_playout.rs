//! Random-playout throughput of the Ludus latrunculorum engine on the default
//! 8 x 8 board with 16 pieces each (`cargo bench --bench latrunculi_playout`).

use arena_core::games::latrunculi::Latrunculi;
use arena_core::games::Game;

fn main() {
    let game = Latrunculi::from_params(&[]).expect("default parameters");
    let t = arena_core::playout::throughput(&game, 3.0, 1);
    println!("latrunculi 8x8, 16 pieces: {t}");
}

//! Random-playout throughput of the Dakon engine on the standard board
//! (7 holes, 7 seeds): `cargo bench --bench dakon_playout`.

use arena_core::games::dakon::Dakon;
use arena_core::playout::throughput;

fn main() {
    let game = Dakon::default();
    let t = throughput(&game, 3.0, 1);
    println!("dakon standard board, random playouts, one thread: {t}");
    println!(
        "moves/s: {:.0}  games/s: {:.0}",
        t.moves_per_sec(),
        t.games_per_sec()
    );
}

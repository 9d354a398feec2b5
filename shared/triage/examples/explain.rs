//! Prints how the triage rules read a text: `cargo run -p triage --example explain --
//! 'A:Har du ramlat? | Ja, i natt'` (lines separated by " | ", "A:" the agent, "R:" a request,
//! "S:" the summary).

fn main() {
    let text = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    println!("{}", triage::explain(&text));
}

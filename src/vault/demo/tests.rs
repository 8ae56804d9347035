use super::*;

#[test]
fn dump() {
    write_demo_vault(Path::new("/tmp/demo1")).unwrap();
}

#[test]
fn show_hyphenated_lines() {
    for paper in &PAPERS {
        let spec = compose::pdf_spec(paper).unwrap();
        let r = pdfwriter::render(&spec).unwrap();
        for l in &r.lines {
            if l.text().ends_with("-") || l.text().contains("extrac") {
                println!("{} p{} c{}: {}", paper.slug, l.page, l.column, l.text());
            }
        }
    }
}

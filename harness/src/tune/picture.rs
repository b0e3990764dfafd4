//! `tune --html`: the front as a picture, a self-contained HTML page with
//! one scatter of the minimised metric against each other metric of the
//! goal, every setting a marker, the front, the recommendation, the
//! defaults and the rules named.

use super::front::{Origin, Point};
use crate::report::svg::{esc, scatter, style, AxisSpec, Point as Marker};

/// The page: `title`, then per metric after the first of `columns` (the
/// goal's, the minimised one first; `labels` are their table labels) a
/// scatter against the first. `on_front` and `best` mark the points.
pub fn html(
    title: &str,
    columns: &[&str],
    labels: &[String],
    points: &[Point],
    on_front: &[bool],
    best: usize,
) -> String {
    let names: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let what = match &p.origin {
                Origin::Defaults => "defaults".to_string(),
                Origin::Search => p.label(),
                Origin::Rule(r) => r.clone(),
            };
            let mark = if i == best {
                "◀ "
            } else if on_front[i] {
                "● "
            } else {
                ""
            };
            format!("{mark}{what}")
        })
        .collect();
    // Search points share one style; the defaults, each rule and the
    // recommendation stand out.
    let kind = |i: usize| match (&points[i].origin, i == best) {
        (_, true) => 1,
        (Origin::Search, _) => 0,
        (Origin::Defaults, _) => 2,
        (Origin::Rule(_), _) => 3 + points[..i].iter().filter(|p| matches!(p.origin, Origin::Rule(_))).count(),
    };
    let mut body = format!("<h1>{}</h1>\n", esc(title));
    body.push_str("<p>◀: the recommendation; ●: on the front (no other setting as good on every metric and better on one, by mean over the same seeds).</p>\n");
    for (k, label) in labels.iter().enumerate().skip(1) {
        let markers: Vec<Marker> = points
            .iter()
            .enumerate()
            .map(|(i, p)| Marker {
                name: &names[i],
                style: style(kind(i)),
                x: p.values[0].map(|v| v.0),
                y: p.values[k].map(|v| v.0),
            })
            .collect();
        let x = AxisSpec { name: &labels[0], unit: "" };
        let y = AxisSpec { name: label, unit: "" };
        body.push_str(&scatter(
            &format!("{} against {}", columns[k], columns[0]),
            x,
            y,
            "Lower-left is better on both.",
            &markers,
        ));
        body.push('\n');
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{font-family:sans-serif;max-width:900px;margin:auto}}svg{{max-width:100%;height:auto}}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        esc(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_a_chart_per_limit_and_names_the_recommendation() {
        let p = |o: Origin, v: &[f64]| Point {
            options: vec![("interp".into(), "25".into())],
            origin: o,
            values: v.iter().map(|x| Some((*x, None))).collect(),
        };
        let points = [
            p(Origin::Defaults, &[197.0, 0.0, 3300.0]),
            p(Origin::Search, &[128.0, 0.0, 3300.0]),
            p(Origin::Rule("lightyear".into()), &[128.0, 0.2, 3300.0]),
        ];
        let page = html(
            "tune <snapshot>",
            &["remote-lat", "snaps", "up"],
            &["rem lat ms".into(), "snaps/min".into(), "up B/s".into()],
            &points,
            &[false, true, true],
            1,
        );
        assert_eq!(page.matches("<svg").count(), 2);
        assert!(
            page.contains("tune &lt;snapshot&gt;") && page.contains("◀ interp=25") && page.contains("● lightyear"),
            "{page}"
        );
        assert!(page.contains("snaps against remote-lat"));
    }
}

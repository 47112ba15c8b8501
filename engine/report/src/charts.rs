//! The page's charts, drawn by plotters as SVG text: success per group, steps per episode and
//! failure reasons. Text is measured with the bundled Roboto, so a chart is the same bytes on
//! every machine.

use std::sync::Once;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::ReportError;
use crate::tally::Tally;

const FONT: &str = "sans-serif";
const WIDTH: u32 = 560;
/// Height of one bar's row in a horizontal bar chart.
const ROW: u32 = 24;
pub(crate) const PASSED: RGBColor = RGBColor(46, 139, 87);
pub(crate) const FAILED: RGBColor = RGBColor(205, 72, 60);
const REASON: RGBColor = RGBColor(120, 110, 200);

/// An axis label for whole numbers, nothing between them.
fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled font parses (the phone renders with it); a failure would only lose labels.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, include_bytes!("../../../assets/fonts/Roboto-Regular.ttf"));
    });
}

fn chart_error(chart: &str) -> impl Fn(&dyn std::fmt::Display) -> ReportError + '_ {
    move |e| ReportError::Chart { chart: chart.to_owned(), message: e.to_string() }
}

/// Room for the longest label, at about 7 px per character, within bounds.
fn label_width<'a>(names: impl Iterator<Item = &'a str>) -> u32 {
    let longest = names.map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    (longest * 7 + 12).clamp(60, 260)
}

/// Horizontal bars of the share of episodes that passed per group, with `passed/episodes` beside
/// each bar.
pub(crate) fn success_by(title: &str, groups: &[Tally]) -> Result<String, ReportError> {
    let bars: Vec<(String, f64, String)> =
        groups.iter().map(|g| (g.name.clone(), g.rate() * 100.0, format!("{}/{}", g.passed, g.episodes))).collect();
    horizontal_bars(title, "episodes that passed (%)", &bars, 100.0, PASSED)
}

/// Horizontal bars of how many failed episodes gave each reason.
pub(crate) fn failure_reasons(title: &str, kinds: &[(String, usize)]) -> Result<String, ReportError> {
    let most = kinds.iter().map(|k| k.1).max().unwrap_or(1).max(1) as f64;
    let bars: Vec<(String, f64, String)> = kinds.iter().map(|(name, n)| (name.clone(), *n as f64, n.to_string())).collect();
    horizontal_bars(title, "failed episodes", &bars, most * 1.15, REASON)
}

fn horizontal_bars(title: &str, axis: &str, bars: &[(String, f64, String)], max: f64, color: RGBColor) -> Result<String, ReportError> {
    register_font();
    let err = chart_error(title);
    let n = bars.len().max(1) as u32;
    let height = 96 + n * ROW;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        // Row r (from the bottom) is centred on y = r, so the axis ticks at whole numbers sit
        // on the bars; bar 0 is the top row.
        let names: Vec<&str> = bars.iter().map(|b| b.0.as_str()).collect();
        let row = |i: usize| f64::from(n - 1) - i as f64;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .margin_right(48)
            .caption(title, (FONT, 17))
            .x_label_area_size(34)
            .y_label_area_size(label_width(names.iter().copied()))
            .build_cartesian_2d(0f64..max, -0.5f64..f64::from(n) - 0.5)
            .map_err(|e| err(&e))?;
        let label = |v: &f64| {
            let r = v.round();
            if (v - r).abs() > 1e-6 || r < 0.0 || r >= f64::from(n) {
                return String::new();
            }
            names.get((f64::from(n) - 1.0 - r) as usize).map(|s| (*s).to_owned()).unwrap_or_default()
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n as usize + 1)
            .y_label_formatter(&label)
            .x_labels(6)
            // Whole numbers only: a count axis of 0..2 must not read 0, 0, 1, 2, 2.
            .x_label_formatter(&whole)
            .light_line_style(WHITE)
            .x_desc(axis)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .map(|(i, (_, value, _))| Rectangle::new([(0.0, row(i) - 0.32), (*value, row(i) + 0.32)], color.filled())),
            )
            .map_err(|e| err(&e))?;
        let text = TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        chart
            .draw_series(
                bars.iter().enumerate().map(|(i, (_, value, note))| Text::new(note.clone(), (*value + max * 0.01, row(i)), text.clone())),
            )
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// Episodes by the number of steps they took, passed and failed stacked.
pub(crate) fn steps_per_episode(title: &str, bins: &[(usize, usize)]) -> Result<String, ReportError> {
    register_font();
    let err = chart_error(title);
    let columns = bins.len().max(1) as u32;
    let top = bins.iter().map(|(p, f)| p + f).max().unwrap_or(1).max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .caption(title, (FONT, 17))
            .x_label_area_size(34)
            .y_label_area_size(40)
            .build_cartesian_2d(-0.5f64..f64::from(columns) - 0.5, 0u32..top + top / 8 + 1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_labels(columns.min(16) as usize + 1)
            .x_label_formatter(&whole)
            .x_desc("steps taken")
            .y_desc("episodes")
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .draw()
            .map_err(|e| err(&e))?;
        let column = |steps: usize, from: usize, to: usize, color: RGBColor| {
            // Each column centred on its number of steps.
            Rectangle::new([(steps as f64 - 0.45, from as u32), (steps as f64 + 0.45, to as u32)], color.filled())
        };
        chart
            .draw_series(bins.iter().enumerate().filter(|(_, b)| b.0 > 0).map(|(s, (p, _))| column(s, 0, *p, PASSED)))
            .map_err(|e| err(&e))?
            .label("passed")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], PASSED.filled()));
        chart
            .draw_series(bins.iter().enumerate().filter(|(_, b)| b.1 > 0).map(|(s, (p, f))| column(s, *p, p + f, FAILED)))
            .map_err(|e| err(&e))?
            .label("failed")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], FAILED.filled()));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .label_font((FONT, 12))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

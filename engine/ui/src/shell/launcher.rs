//! The home screen: a date header, a grid of installed apps (4 x 5 per page), page dots when
//! they do not fit on one page (swipe sideways or tap a dot).

use phoneworld_data::CivilTime;
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;

use super::{Shell, LAUNCHER};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::kit;

pub(crate) const COLUMNS: usize = 4;
pub const APPS_PER_PAGE: usize = COLUMNS * 5;

fn app_cell(s: &mut Shell<'_>, index: usize) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let app = &s.catalog.apps[index];
    let manifest = &app.bundle.manifest;
    let (label, package, icon_name) = (manifest.label.clone(), manifest.package.clone(), manifest.icon.clone());
    let bg = Color::parse_hex(&manifest.color).unwrap_or(t.primary);
    let mut cell = container(Direction::Column);
    cell.style.grow = 1.0;
    cell.style.width = Some(0.0);
    cell.style.align_items = Some(Align::Center);
    cell.style.gap = m.dp(6.0);
    cell.style.padding = [0.0, m.dp(8.0), 0.0, m.dp(8.0)];
    let mut icon = container(Direction::Column);
    icon.style.width = Some(m.dp(56.0));
    icon.style.height = Some(m.dp(56.0));
    icon.style.align_items = Some(Align::Center);
    icon.style.justify = Justify::Center;
    icon.paint.background = Some(bg);
    icon.paint.circle = true;
    icon.children.push(kit::icon(&m, &icon_name, 30.0, Color::WHITE));
    cell.children.push(icon);
    cell.children.push(kit::centered(kit::one_line(kit::text(&m, label.clone(), 12.0, Weight::Regular, t.on_surface))));
    super::silence(&mut cell);
    let mut a = kit::a11y("android.widget.TextView", LAUNCHER);
    a.text = label.clone();
    a.content_desc = label;
    a.clickable = true;
    cell.set_a11y(a);
    cell.hit = Some(s.tap(SystemAction::Launch(package)));
    cell
}

/// Indices (into the catalog) of the apps the launcher shows: mini-apps live in their host.
pub fn launcher_apps(catalog: &crate::catalog::Catalog) -> Vec<usize> {
    (0..catalog.apps.len()).filter(|&i| catalog.apps[i].bundle.manifest.mini_app_of.is_none()).collect()
}

pub(crate) fn launcher(s: &mut Shell<'_>) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let shown = launcher_apps(s.catalog);
    let pages = shown.len().div_ceil(APPS_PER_PAGE).max(1);
    let page = s.store.session.launcher_page.min(pages - 1);
    let mut home = container(Direction::Column);
    home.style.grow = 1.0;
    home.style.padding = [m.dp(12.0), m.dp(24.0), m.dp(12.0), m.dp(16.0)];
    home.paint.background = Some(t.background);
    let wallpaper = crate::wallpaper::system_wallpaper(&s.store.system);
    let seed = crate::accent::system_accent(&s.store.system).unwrap_or(t.primary);
    if let Some(image) = crate::wallpaper::image(wallpaper, seed, t.dark) {
        home.content = phoneworld_layout::Content::Image(phoneworld_layout::ImagePaint {
            image,
            fit: phoneworld_render::Fit::Cover,
            radius: 0.0,
            circle: false,
        });
    }

    let now = CivilTime::from_ms(s.store.session.clock_ms);
    let mut date = kit::text(&m, now.format("%A, %b %e").replace("  ", " "), 22.0, Weight::Regular, t.on_surface);
    date.style.padding = [m.dp(12.0), 0.0, 0.0, m.dp(24.0)];
    let mut a = kit::a11y("android.widget.TextView", LAUNCHER);
    a.text = now.format("%A, %b %e").replace("  ", " ");
    date.set_a11y(a);
    home.children.push(date);

    let mut grid = container(Direction::Column);
    grid.style.grow = 1.0;
    grid.style.gap = m.dp(12.0);
    let start = page * APPS_PER_PAGE;
    let end = (start + APPS_PER_PAGE).min(shown.len());
    let indices: Vec<usize> = shown[start..end].to_vec();
    for chunk in indices.chunks(COLUMNS) {
        let mut row = container(Direction::Row);
        for &i in chunk {
            row.children.push(app_cell(s, i));
        }
        for _ in chunk.len()..COLUMNS {
            let mut filler = ViewNode::default();
            filler.style.grow = 1.0;
            filler.style.width = Some(0.0);
            row.children.push(filler);
        }
        grid.children.push(row);
    }
    let mut a = kit::a11y("android.view.ViewGroup", LAUNCHER);
    a.resource_id = "com.phoneworld.launcher:id/workspace".into();
    grid.set_a11y(a);
    home.children.push(grid);

    if pages > 1 {
        let mut dots = container(Direction::Row);
        dots.style.justify = Justify::Center;
        dots.style.gap = m.dp(4.0);
        for p in 0..pages {
            let mut target = container(Direction::Column);
            target.style.width = Some(m.dp(48.0));
            target.style.height = Some(m.dp(48.0));
            target.style.align_items = Some(Align::Center);
            target.style.justify = Justify::Center;
            let mut dot = ViewNode::default();
            dot.style.width = Some(m.dp(8.0));
            dot.style.height = Some(m.dp(8.0));
            dot.paint.circle = true;
            dot.paint.background = Some(if p == page { t.primary } else { t.outline_variant });
            target.children.push(dot);
            let mut a = kit::a11y("android.widget.ImageView", LAUNCHER);
            a.content_desc = format!("Page {} of {pages}", p + 1);
            a.clickable = true;
            a.selected = p == page;
            target.set_a11y(a);
            target.hit = Some(s.tap(SystemAction::LauncherPage(p)));
            dots.children.push(target);
        }
        home.children.push(dots);
    }
    home.set_a11y(kit::a11y("android.widget.FrameLayout", LAUNCHER));
    home
}

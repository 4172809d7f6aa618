//! Every table `wf` draws, built one way: the same frame, colour only when the reader
//! asked for it, and cells wrapped to fit the width the reader has (a terminal's, or
//! `COLUMNS`); with no width — a pipe, a file — each row stays on one line.

use comfy_table::{presets, ColumnConstraint, ContentArrangement, Table};

use crate::output::Look;

pub fn new(look: Look) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if look.color {
        table.enforce_styling();
    } else {
        // No styling codes whatever the terminal: colour is the caller's decision.
        table.force_no_tty();
    }
    if let Some(width) = look.width {
        table.set_width(width);
    }
    table
}

/// Keeps the `columns` (by index) as wide as their content, so short values — ids,
/// kinds, yes/no — are never broken; the other columns share what width is left.
pub fn keep_whole(table: &mut Table, columns: &[usize]) {
    for &index in columns {
        if let Some(column) = table.column_mut(index) {
            column.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide_table(look: Look) -> String {
        let mut table = new(look);
        table.set_header(vec!["id", "description"]);
        table.add_row(vec![
            "C1",
            &"the build passes with every warning denied ".repeat(4),
        ]);
        table.to_string()
    }

    #[test]
    fn a_table_fits_the_width_it_is_given() {
        let text = wide_table(Look {
            color: false,
            width: Some(60),
        });
        for line in text.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
        assert!(text.lines().count() > 5, "the long cell wraps:\n{text}");
    }

    #[test]
    fn kept_columns_stay_whole_and_the_rest_wraps() {
        let mut table = new(Look {
            color: false,
            width: Some(40),
        });
        table.set_header(vec!["category", "description"]);
        table.add_row(vec![
            "performance",
            &"answers within two hundred ms ".repeat(3),
        ]);
        keep_whole(&mut table, &[0]);
        let text = table.to_string();
        assert!(text.contains("performance"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 40), "{text}");
    }

    #[test]
    fn without_a_width_each_row_stays_on_one_line() {
        let text = wide_table(Look {
            color: false,
            width: None,
        });
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn colour_is_drawn_only_when_asked() {
        let mut table = new(Look {
            color: true,
            width: None,
        });
        table.add_row(vec![comfy_table::Cell::new("x").fg(comfy_table::Color::Red)]);
        assert!(table.to_string().contains("\x1b["));
    }
}

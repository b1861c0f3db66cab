//! Heatmaps as PNG or PDF: the SVG drawing of [`super::heatmap`], rendered by resvg
//! (PNG, one pixel per SVG unit times the scale) or converted to vector PDF by svg2pdf.
//! Both read the same parsed drawing, so the three formats show the same figure.
//!
//! Text needs a font: the system's fonts are loaded once ([`Fonts::system`]) and the
//! drawing's `sans-serif` is mapped to the first of DejaVu Sans, Liberation Sans, Arial,
//! Helvetica, Noto Sans that is installed (else any installed family). Without any font the
//! conversion fails with [`FigureError::NoFonts`] rather than write a figure without labels.

use resvg::tiny_skia;
use resvg::usvg;
use std::sync::Arc;

/// The raster or vector format of a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FigureFormat {
    /// PNG at twice the SVG's size.
    Png,
    /// Vector PDF, one page the size of the drawing.
    Pdf,
}

impl FigureFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            FigureFormat::Png => "png",
            FigureFormat::Pdf => "pdf",
        }
    }
}

/// PNG pixels per SVG unit.
const PNG_SCALE: f32 = 2.0;

/// Why a figure could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    /// No font is installed, so the labels could not be drawn.
    #[error(
        "no fonts found on this system, so the heatmap's labels cannot be drawn; install one (e.g. DejaVu Sans) or use --format svg"
    )]
    NoFonts,
    /// The SVG did not parse (a bug in the drawing).
    #[error("reading the heatmap drawing: {0}")]
    Svg(String),
    /// The raster or PDF conversion failed.
    #[error("converting the heatmap: {0}")]
    Convert(String),
}

/// The fonts text is drawn with.
#[derive(Clone)]
pub struct Fonts(Arc<usvg::fontdb::Database>);

impl Fonts {
    /// The system's fonts, `sans-serif` mapped to an installed family.
    pub fn system() -> Fonts {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        let families: Vec<String> = db.faces().flat_map(|f| f.families.iter().map(|(n, _)| n.clone())).collect();
        let pick = ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica", "Noto Sans"]
            .iter()
            .find(|w| families.iter().any(|f| f == *w))
            .map(|s| s.to_string())
            .or_else(|| families.first().cloned());
        if let Some(f) = pick {
            db.set_sans_serif_family(f);
        }
        Fonts(Arc::new(db))
    }

    /// How many font faces were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no font was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The SVG `svg` as `format`.
pub fn convert(svg: &str, format: FigureFormat, fonts: &Fonts) -> Result<Vec<u8>, FigureError> {
    if fonts.is_empty() {
        return Err(FigureError::NoFonts);
    }
    let options = usvg::Options { fontdb: Arc::clone(&fonts.0), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| FigureError::Svg(e.to_string()))?;
    match format {
        FigureFormat::Png => {
            let size = tree
                .size()
                .to_int_size()
                .scale_by(PNG_SCALE)
                .ok_or_else(|| FigureError::Convert("empty size".into()))?;
            let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| {
                FigureError::Convert(format!("cannot allocate {}x{} pixels", size.width(), size.height()))
            })?;
            resvg::render(&tree, tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE), &mut pixmap.as_mut());
            pixmap.encode_png().map_err(|e| FigureError::Convert(e.to_string()))
        }
        FigureFormat::Pdf => {
            svg2pdf::to_pdf(&tree, svg2pdf::ConversionOptions::default(), svg2pdf::PageOptions::default())
                .map_err(|e| FigureError::Convert(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="white"/><text x="4" y="26" font-family="sans-serif" font-size="16">60.0 ± 8.0</text></svg>"#;

    #[test]
    fn png_and_pdf_come_from_the_same_drawing() {
        let fonts = Fonts::system();
        if fonts.is_empty() {
            assert!(matches!(convert(SVG, FigureFormat::Png, &fonts), Err(FigureError::NoFonts)));
            return;
        }
        let png = convert(SVG, FigureFormat::Png, &fonts).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // 240 x 80 pixels (twice the drawing): width and height in the IHDR chunk.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 240);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 80);
        let pdf = convert(SVG, FigureFormat::Pdf, &fonts).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{:?}", &pdf[..8]);
        // The text is drawn: a blank drawing compresses to far fewer bytes.
        let blank = SVG.replace("60.0 ± 8.0", "");
        assert!(convert(&blank, FigureFormat::Png, &fonts).unwrap().len() < png.len());
        assert!(matches!(convert("<svg", FigureFormat::Pdf, &fonts), Err(FigureError::Svg(_))));
    }
}

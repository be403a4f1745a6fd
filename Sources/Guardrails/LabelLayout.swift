/// Rows for the decision labels under the guard chart (SPEC §15.1: labels must not overlap).
/// Decisions close in time — an advance, then an SRM a few seconds later — put their labels at
/// almost the same x; each label goes to the first row where it clears every label already
/// there by `gap`, so near labels stack and far ones share the first row. Pure; the widths are
/// estimates from the text (the SVG is drawn on the server, which cannot measure glyphs).
public enum LabelLayout {
    /// A label's horizontal extent in the chart's pixels.
    public struct Span: Equatable, Sendable {
        public var start: Int
        public var end: Int
        public init(start: Int, end: Int) { self.start = start; self.end = end }
    }

    /// Px per character of the chart's 12 px sans-serif text: wider than the average glyph, so
    /// an estimate errs towards a spare row rather than an overlap.
    public static let characterWidth = 7.5

    /// The extent of `text` drawn from `x`, ending there when `alignEnd` (text-anchor end).
    public static func span(_ text: String, x: Int, alignEnd: Bool) -> Span {
        let width = Int((Double(text.unicodeScalars.count) * characterWidth).rounded(.up))
        return alignEnd ? Span(start: x - width, end: x) : Span(start: x, end: x + width)
    }

    /// The row of each span, in the given order (0 = the first row).
    public static func rows(_ spans: [Span], gap: Int = 6) -> [Int] {
        var rowEnds: [[Span]] = []
        return spans.map { span in
            let free = rowEnds.firstIndex { placed in
                placed.allSatisfy { span.start >= $0.end + gap || span.end + gap <= $0.start }
            }
            let row = free ?? rowEnds.count
            if row == rowEnds.count { rowEnds.append([]) }
            rowEnds[row].append(span)
            return row
        }
    }
}

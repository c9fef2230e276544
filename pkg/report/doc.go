// Package report is kerneltune's presentation layer: the tables the
// commands print, and the renderers that write them as box-drawn text,
// markdown, CSV, a LaTeX booktabs tabular or JSON.
//
// A Table holds strings, not numbers: whoever builds it chooses each
// number's precision (Fixed, Sig), so every format shows the same digits.
// Nothing here prints on its own; Render and RenderJSON write to the
// io.Writer they are given.
package report

package templates

import "embed"

//go:embed export
var exportFiles embed.FS

// ExportGuide is the text/template of the CONTEXT.md that ctx0 export writes
// at the root of an export; package export gives it its data.
func ExportGuide() string {
	data, _ := exportFiles.ReadFile("export/CONTEXT.md.tmpl")
	return string(data)
}

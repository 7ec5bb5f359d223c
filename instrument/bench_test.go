package instrument

import (
	"go/importer"
	"go/token"
	"os"
	"testing"
)

// BenchmarkPackage measures the rewrite of one package, the generated
// file included, with the imports type-checked once.
func BenchmarkPackage(b *testing.B) {
	for _, name := range []string{"mask_graph", "vector", "literals"} {
		b.Run(name, func(b *testing.B) {
			src, err := os.ReadFile("testdata/rewrite/" + name + ".go")
			if err != nil {
				b.Fatal(err)
			}
			opts := testOptions()
			opts.Importer = importer.ForCompiler(token.NewFileSet(), "source", nil)
			opts.Mask = name == "mask_graph"
			files := []File{{Name: "/src/example.com/m/" + name + ".go", Src: src}}
			if _, err := Package(files, opts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := Package(files, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

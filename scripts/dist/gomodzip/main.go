// gomodzip writes one version of a Go module into a folder laid out as a GOPROXY serves it
// (<module>/@v/list, <version>.info, .mod, .zip), for `make dist`. The zip is made by
// golang.org/x/mod/zip, the go command's own rules (file names, size limits, no nested modules
// or vendor folders), so `go get` through GOPROXY=file://... accepts it.
//
//	go run . -dir TREE -module PATH -version vX.Y.Z -out GOPROXY_FOLDER
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's folder (holding go.mod)")
	modPath := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the version, vX.Y.Z")
	out := flag.String("out", "", "the GOPROXY folder to write into")
	flag.Parse()
	if err := run(*dir, *modPath, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gomodzip:", err)
		os.Exit(1)
	}
}

func run(dir, modPath, version, out string) error {
	if dir == "" || modPath == "" || version == "" || out == "" {
		return fmt.Errorf("-dir, -module, -version and -out are all required")
	}
	mv := module.Version{Path: modPath, Version: version}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, escaped, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	zipFile, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zipFile, mv, dir); err != nil {
		zipFile.Close()
		return err
	}
	if err := zipFile.Close(); err != nil {
		return err
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, version+".mod"), goMod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, version+".info"), info, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(vdir, "list"), []byte(version+"\n"), 0o644)
}

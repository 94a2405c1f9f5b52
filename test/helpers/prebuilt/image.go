package prebuilt

import (
	"os"
	"path/filepath"
	"strings"
)

// ChaosImage is the chaos suite's image, built by `make image IMAGE=idnode:chaos` and run by
// compose through IDNODE_IMAGE, so a developer's idnode:dev is left alone.
const ChaosImage = "idnode:chaos"

// imageMark is the file in the folder of programs that says image was built for this run.
func imageMark(dir, image string) string {
	return filepath.Join(dir, "image-"+strings.NewReplacer(":", "_", "/", "_").Replace(image))
}

// ImageBuilt says whether the folder $IDNODE_PREBUILT names marks image as built from this
// tree for the run (MarkImage).
func ImageBuilt(image string) bool {
	dir := os.Getenv(Env)
	if dir == "" {
		return false
	}
	_, err := os.Stat(imageMark(dir, image))
	return err == nil
}

// MarkImage marks image as built from this tree in the folder dir.
func MarkImage(dir, image string) error {
	return os.WriteFile(imageMark(dir, image), []byte(image+"\n"), 0o644)
}

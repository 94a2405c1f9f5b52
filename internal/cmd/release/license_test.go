package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestClassify(t *testing.T) {
	for text, want := range map[string]string{
		"Apache License\n   Version 2.0, January 2004":                                                          "Apache-2.0",
		"Mozilla Public License, version 2.0":                                                                   "MPL-2.0",
		"Redistribution and use in source and binary forms, with or without\nmodification ... Neither the name": "BSD-3-Clause",
		"Redistribution and use in source and\n  binary forms, with or without modification":                    "BSD-2-Clause",
		"Permission is hereby granted,\nfree of charge, to any person":                                          "MIT",
		"GNU GENERAL PUBLIC LICENSE Version 3":                                                                  "",
	} {
		if got := classify(text); got != want {
			t.Errorf("classify(%q) = %q, want %q", text, got, want)
		}
	}
}

// A licence nobody taught the generator, or none at all, stops it: a module does not ship
// under a licence nobody read.
func TestLicenseOfRefusesUnknown(t *testing.T) {
	unknown := t.TempDir()
	if err := os.WriteFile(filepath.Join(unknown, "COPYING"), []byte("GNU GENERAL PUBLIC LICENSE Version 3"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{unknown, t.TempDir()} {
		if _, _, err := licenseOf(dir); !errors.Is(err, errNoLicense) {
			t.Errorf("licenseOf(%s) = %v, want errNoLicense", dir, err)
		}
	}
}

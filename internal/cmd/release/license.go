package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errNoLicense is a module whose licence file is missing or not one of the texts licenseOf
// knows: a person must read it before the module ships.
var errNoLicense = errors.New("no licence recognised")

// licenseFiles are the names a module's licence goes by, in the order they are tried.
var licenseFiles = []string{"LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING", "COPYING.md"}

// licenseMarks identify each licence by phrases of its text, most specific first: a BSD-3
// text also has every BSD-2 phrase.
var licenseMarks = []struct {
	id    string
	marks []string
}{
	{"Apache-2.0", []string{"Apache License", "Version 2.0"}},
	{"MPL-2.0", []string{"Mozilla Public License", "2.0"}},
	{"BSD-3-Clause", []string{"Redistribution and use in source and binary forms", "Neither the name"}},
	{"BSD-2-Clause", []string{"Redistribution and use in source and binary forms"}},
	{"MIT", []string{"Permission is hereby granted, free of charge"}},
	{"ISC", []string{"Permission to use, copy, modify, and/or distribute this software"}},
}

// licenseOf reads the licence file in a module's directory: its SPDX identifier and the file's
// name.
func licenseOf(dir string) (id, file string, err error) {
	for _, name := range licenseFiles {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if id := classify(string(text)); id != "" {
			return id, name, nil
		}
		return "", "", fmt.Errorf("%s: %w: read it and add its phrases to licenseMarks", filepath.Join(dir, name), errNoLicense)
	}
	return "", "", fmt.Errorf("%s: %w: no %s", dir, errNoLicense, strings.Join(licenseFiles, ", "))
}

// classify names the licence a text is, "" when none matches.
func classify(text string) string {
	text = strings.Join(strings.Fields(text), " ") // phrases may wrap at any space
	for _, l := range licenseMarks {
		all := true
		for _, m := range l.marks {
			all = all && strings.Contains(text, m)
		}
		if all {
			return l.id
		}
	}
	return ""
}

// noticeFiles are the names of the NOTICE file an Apache-2.0 module asks redistributors to
// pass on (section 4(d) of the licence).
var noticeFiles = []string{"NOTICE", "NOTICE.txt", "NOTICE.md"}

// noticeOf is the text of a module's NOTICE file, "" when it has none.
func noticeOf(dir string) string {
	for _, name := range noticeFiles {
		if text, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return strings.TrimSpace(string(text))
		}
	}
	return ""
}

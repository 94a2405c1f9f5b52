package docid_test

import (
	"fmt"

	"github.com/idnode/idnode/docid"
)

func ExampleParse() {
	for _, s := range []string{"users/ayende", "", "users/", "users|", `users\1`} {
		req, err := docid.Parse(s, docid.DefaultSeparator)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q: %s %q\n", s, req.Kind, req.Prefix)
	}
	// Output:
	// "users/ayende": semantic ""
	// "": guid ""
	// "users/": server-side "users/"
	// "users|": identity "users"
	// document id contains a backslash: "users\\1"
}

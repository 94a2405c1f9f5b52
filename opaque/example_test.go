package opaque_test

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/idnode/idnode/opaque"
)

// An identity's public form under a key, read back in lower case as a user might type it.
func Example() {
	key, _ := hex.DecodeString("2b7e151628aed2a6abf7158809cf4f3c")
	orders, err := opaque.NewIdentityCodec(key, "orders")
	if err != nil {
		panic(err)
	}
	form, _ := orders.Encode(1)
	value, err := orders.Decode(strings.ToLower(form))
	fmt.Println(len(form), value, err)
	// Output: 13 1 <nil>
}

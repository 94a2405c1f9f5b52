package history

import (
	"math"
	"strconv"
)

// Values are a line's samples; NaN, a sample without a value, is null in JSON (which has no
// NaN), so a graph shows a gap there rather than a zero.
type Values []float64

// MarshalJSON writes the values as a JSON array of numbers and nulls.
func (v Values) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 2+len(v)*8)
	out = append(out, '[')
	for i, x := range v {
		if i > 0 {
			out = append(out, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			out = append(out, "null"...)
			continue
		}
		out = strconv.AppendFloat(out, x, 'g', -1, 64)
	}
	return append(out, ']'), nil
}

package httpapi

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/reason"
)

// refuse answers a request the HTTP layer turns away before any RPC, in the shape and bytes of
// the gateway's own error answers (a google.rpc.Status with an ErrorInfo reason, by the same
// marshaller), so a client reads every refusal the same way.
func refuse(w http.ResponseWriter, httpStatus int, code codes.Code, why, msg string) {
	body, err := answerJSON.Marshal(status.Convert(reason.Error(code, why, msg)).Proto())
	if err != nil {
		http.Error(w, msg, httpStatus) // a Status of strings always marshals; never reached
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	_, _ = w.Write(body)
}

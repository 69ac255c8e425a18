// Command openapi-v2-proto turns an OpenAPI v2 document (JSON on stdin) into the protobuf form
// kube-apiserver serves at /openapi/v2 for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
// (what kubectl 1.27 and 1.28 ask for), the way kube-openapi's handler.ToProtoBinary does it.
package main

import (
	"io"
	"os"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		panic(err)
	}
	document, err := openapi_v2.ParseDocument(in)
	if err != nil {
		os.Stderr.WriteString("openapi-v2-proto: " + err.Error() + "\n")
		os.Exit(1)
	}
	out, err := proto.Marshal(document)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(out)
}

// Package api holds the OpenAPI documents of the platform's HTTP APIs,
// embedded in the binary so the server can serve them and tests can check
// the handlers against them.
//
// Each API has its own document beside this file, named after it:
// guide.yaml for the guide marketplace API, property.yaml for the property
// platform open API. Every document gets a Load function, which parses and
// validates it, and a JSON function, which returns it as JSON for serving.
package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// guideYAML is the OpenAPI 3.0.3 document of the guide marketplace API.
//
//go:embed guide.yaml
var guideYAML []byte

// LoadGuide parses and validates the guide marketplace API document. Each
// call returns a new *openapi3.T, which the caller may modify.
func LoadGuide() (*openapi3.T, error) {
	return load("guide.yaml", guideYAML)
}

// GuideJSON returns the guide marketplace API document as JSON, as served at
// GET /api/v1/openapi.json. It is computed once; callers must not modify the
// returned slice.
func GuideJSON() ([]byte, error) {
	return guideJSON()
}

var guideJSON = sync.OnceValues(func() ([]byte, error) {
	return marshal("guide.yaml", LoadGuide)
})

// propertyYAML is the OpenAPI 3.0.3 document of the property platform open
// API.
//
//go:embed property.yaml
var propertyYAML []byte

// LoadProperty parses and validates the property platform API document.
// Each call returns a new *openapi3.T, which the caller may modify.
func LoadProperty() (*openapi3.T, error) {
	return load("property.yaml", propertyYAML)
}

// PropertyJSON returns the property platform API document as JSON, as
// served at GET /api/v1/openapi.json on the property server. It is computed
// once; callers must not modify the returned slice.
func PropertyJSON() ([]byte, error) {
	return propertyJSON()
}

var propertyJSON = sync.OnceValues(func() ([]byte, error) {
	return marshal("property.yaml", LoadProperty)
})

// octoYAML is the OCTO specification's OpenAPI document (octo/README.md),
// the contract of the guide marketplace's OCTO supplier endpoint under
// /octo.
//
//go:embed octo/openapi.yaml
var octoYAML []byte

// LoadOcto parses and validates the OCTO document. Its paths are relative
// to the OCTO endpoint, /octo on the guide server. Each call returns a new
// *openapi3.T, which the caller may modify.
func LoadOcto() (*openapi3.T, error) {
	return load("octo/openapi.yaml", octoYAML)
}

// OctoJSON returns the OCTO document as JSON, as the reference pages serve
// it (GET /docs/octo/openapi.json on the guide server), its server the
// endpoint /octo of the server that serves it rather than the
// specification's example. It is computed once; callers must not modify
// the returned slice.
func OctoJSON() ([]byte, error) {
	return octoJSON()
}

var octoJSON = sync.OnceValues(func() ([]byte, error) {
	return marshal("octo/openapi.yaml", func() (*openapi3.T, error) {
		doc, err := LoadOcto()
		if err != nil {
			return nil, err
		}
		doc.Servers = openapi3.Servers{{URL: "/octo", Description: "the OCTO endpoint of this guide server"}}
		return doc, nil
	})
})

// load parses the document data, resolves its internal references and
// validates it. name is only used in errors.
func load(name string, data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("api: load %s: %w", name, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("api: validate %s: %w", name, err)
	}
	return doc, nil
}

// marshal loads a document with loadDoc and encodes it as JSON.
func marshal(name string, loadDoc func() (*openapi3.T, error)) ([]byte, error) {
	doc, err := loadDoc()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("api: encode %s as JSON: %w", name, err)
	}
	return b, nil
}

module github.com/ctx0/ctx0/scripts/gitleaks

go 1.26.8

require github.com/pelletier/go-toml/v2 v2.4.3

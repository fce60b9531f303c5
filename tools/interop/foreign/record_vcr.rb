# Record the fixed traffic script with Ruby VCR (Debian ruby-vcr) + webmock + Net::HTTP.
# usage: ruby record_vcr.rb BASE_URL OUT_DIR SERIALIZER(yaml|json|compressed) [NAME] [exact]
# Cassette name defaults to "vcr-ruby"; VCR appends the serializer's extension (.yml / .json / .zz).
# "exact" turns on VCR's documented recipe for binary bodies (not a default):
#   c.preserve_exact_body_bytes { |m| m.body.encoding.name == 'ASCII-8BIT' || !m.body.valid_encoding? }
require 'net/http'
require 'uri'
require 'vcr'
require 'webmock'

base, out_dir, serializer, name, option = ARGV
name ||= 'vcr-ruby'
uri = URI(base)
puts "VCR.version=#{VCR.version} WebMock=#{WebMock::VERSION} ruby=#{RUBY_VERSION}"

VCR.configure do |c|
  c.cassette_library_dir = out_dir
  c.hook_into :webmock
  if option == 'exact'
    c.preserve_exact_body_bytes do |http_message|
      http_message.body.encoding.name == 'ASCII-8BIT' || !http_message.body.valid_encoding?
    end
  end
end

ext = { 'yaml' => 'yml', 'json' => 'json', 'compressed' => 'zz' }.fetch(serializer)
path = File.join(out_dir, "#{name}.#{ext}")
abort "#{path} exists; refusing to append" if File.exist?(path)

VCR.use_cassette(name, serialize_with: serializer.to_sym) do
  Net::HTTP.start(uri.host, uri.port) do |http|
    reqs = []
    reqs << Net::HTTP::Get.new('/users/1', 'Authorization' => 'Bearer secret-token', 'Accept' => 'application/json')
    reqs << Net::HTTP::Get.new('/counter')
    reqs << Net::HTTP::Get.new('/counter')
    reqs << Net::HTTP::Get.new('/gzip', 'Accept-Encoding' => 'gzip')
    reqs << Net::HTTP::Get.new('/image.png')
    login = Net::HTTP::Post.new('/login', 'Content-Type' => 'application/json')
    login.body = '{"username":"ada","password":"lovelace"}'
    reqs << login
    reqs << Net::HTTP::Get.new('/missing')
    reqs << Net::HTTP::Get.new('/latin1')
    reqs << Net::HTTP::Get.new('/redirect')   # Net::HTTP does not follow redirects
    form = Net::HTTP::Post.new('/form', 'Content-Type' => 'application/x-www-form-urlencoded')
    form.body = 'a=1&b=two'
    reqs << form
    reqs.each do |r|
      res = http.request(r)
      puts "#{r.method} #{r.path} #{res.code} #{res.body.bytesize} bytes #{res.body.encoding}"
    end
  end
end
puts "written #{path}"

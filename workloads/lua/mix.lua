-- workloads/lua/mix.lua - a Lua program that spreads its time over much of the interpreter:
-- table building and sorting, string formatting and patterns, closures, coroutines, integer and
-- float arithmetic. Run by Debian's Lua 5.4 built for Alpha (scripts/fetch-workloads); its large
-- code footprint is what the small workloads lack for DCPI's I-cache analysis (Figure 10).
-- Usage: lua mix.lua [N]   (default 3000). Deterministic output: a few checksums.

local n = tonumber(arg and arg[1]) or 3000

-- A linear congruential generator, so the run never depends on math.random's seed.
local seed = 12345
local function rand(m)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % m
end

-- Tables of records, sorted three ways.
local people = {}
for i = 1, n do
	people[i] = { id = i, age = rand(90), name = string.format("p%05d-%x", i, rand(65536)) }
end
table.sort(people, function(a, b) return a.age < b.age or (a.age == b.age and a.id < b.id) end)
local s1 = 0
for i, p in ipairs(people) do s1 = (s1 * 31 + p.age * i) % 1000000007 end
table.sort(people, function(a, b) return a.name < b.name end)
local s2 = 0
for i = 1, #people, 7 do s2 = (s2 + people[i].id) % 1000000007 end

-- Strings: formatting, patterns, substitutions, concatenation.
local words = {}
for i = 1, n do
	words[#words + 1] = string.format("%s%d", ({ "alpha", "beta", "gamma", "delta" })[i % 4 + 1], i)
end
local text = table.concat(words, " ")
local count = 0
for w in text:gmatch("%a+(%d+)") do count = count + #w end
local replaced = text:gsub("(%a+)(%d)", "%2%1")
local upper = replaced:upper():sub(1, 64)

-- Closures and higher-order functions.
local function compose(f, g) return function(x) return f(g(x)) end end
local inc = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
local h = compose(inc, compose(dbl, inc))
local acc = 0
for i = 1, n * 4 do acc = (acc + h(i)) % 65521 end

-- Coroutines: a generator pipeline.
local function gen(k)
	return coroutine.wrap(function()
		for i = 1, k do coroutine.yield(i * i % 97) end
	end)
end
local total = 0
for v in gen(n * 2) do total = total + v end

-- Floating point.
local x = 0.0
for i = 1, n * 4 do x = x + math.sin(i * 0.001) * math.sqrt(i) end

print(string.format("lua-mix: n=%d s1=%d s2=%d count=%d acc=%d total=%d x=%.6f", n, s1, s2,
	count, acc, total, x))
print("lua-mix: " .. upper)
